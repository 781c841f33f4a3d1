/**
 * An in-memory expo-file-system (SDK 55's `File`/`Directory`/`Paths`/`FileHandle`), written from its
 * published type definitions and documentation and, where those are silent, its iOS implementation
 * (FileSystemFile.swift, FileSystemPath.swift, FileSystemFileHandle.swift):
 * - `File.create()` throws when the file exists (unless `overwrite`) or its folder is missing (unless
 *   `intermediates`); `open()` throws for a missing file and gives a read-write handle at offset 0;
 * - `readBytes(n)` returns at most `n` bytes from the offset and advances it; `writeBytes` writes at the
 *   offset (extending the file) and advances it; a closed handle throws and reports `offset`/`size` null;
 * - `move(file)` throws when the destination exists (FileManager.moveItem) or its folder is missing, and
 *   updates `uri`; `move(directory)` keeps the name; `delete()` throws for a missing path;
 * - `Directory.create()` throws when it exists (unless `idempotent`) or its parent is missing (unless
 *   `intermediates`); `delete()` removes everything under it; `list()` gives `File`/`Directory` objects.
 * Every call is synchronous, as the JSI calls are. `faults` makes the next call of an operation throw;
 * `calls` records every handle read and write (for the ≥ 64 KiB / ≤ 256 KiB checks).
 */

type Operation = 'create' | 'open' | 'readBytes' | 'writeBytes' | 'close' | 'move' | 'delete' | 'mkdir';

export interface FakeExpoFileSystem {
  File: new (...uris: (string | { uri: string })[]) => FakeFile;
  Directory: new (...uris: (string | { uri: string })[]) => FakeDirectory;
  Paths: { readonly cache: FakeDirectory };
  /** Path → bytes of every file. */
  readonly files: Map<string, Uint8Array>;
  /** Every directory path (with a trailing slash). */
  readonly dirs: Set<string>;
  /** Operations whose next call throws (each entry is used once). */
  readonly faults: Operation[];
  /** Handle reads and writes: operation, file path, byte count. */
  readonly calls: { op: 'readBytes' | 'writeBytes'; path: string; bytes: number }[];
  /** Open handles (a test checks none is left open). */
  readonly openHandles: Set<FakeHandle>;
}

export interface FakeFile {
  readonly uri: string;
  readonly exists: boolean;
  readonly size: number;
  create(options?: { intermediates?: boolean; overwrite?: boolean }): void;
  open(): FakeHandle;
  move(destination: { uri: string }): void;
  delete(): void;
  bytesSync(): Uint8Array;
  write(content: Uint8Array): void;
}

export interface FakeDirectory {
  readonly uri: string;
  readonly exists: boolean;
  create(options?: { intermediates?: boolean; idempotent?: boolean }): void;
  delete(): void;
  list(): (FakeDirectory | FakeFile)[];
}

export interface FakeHandle {
  readBytes(length: number): Uint8Array<ArrayBuffer>;
  writeBytes(bytes: Uint8Array): void;
  offset: number | null;
  readonly size: number | null;
  close(): void;
}

const PREFIX = 'file://';

function pathOf(uri: string): string {
  if (!uri.startsWith(PREFIX)) throw new Error(`not a file:// URI: ${uri}`);
  return decodeURIComponent(uri.slice(PREFIX.length));
}

function join(parts: (string | { uri: string })[]): string {
  let path = '';
  for (const [i, part] of parts.entries()) {
    const text = typeof part === 'string' ? part : part.uri;
    const segment = i === 0 ? (text.startsWith(PREFIX) ? pathOf(text) : text) : text;
    path = i === 0 ? segment : `${path.replace(/\/+$/, '')}/${segment.replace(/^\/+/, '')}`;
  }
  return path;
}

function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return `${trimmed.slice(0, trimmed.lastIndexOf('/'))}/`;
}

/** A fresh in-memory file system whose cache directory is `file:///cache/` (existing). */
export function fakeExpoFileSystem(): FakeExpoFileSystem {
  const files = new Map<string, Uint8Array>();
  const dirs = new Set<string>(['/', '/cache/']);
  const faults: Operation[] = [];
  const calls: FakeExpoFileSystem['calls'] = [];
  const openHandles = new Set<FakeHandle>();

  const fault = (op: Operation) => {
    const at = faults.indexOf(op);
    if (at >= 0) {
      faults.splice(at, 1);
      throw new Error(`injected ${op} failure`);
    }
  };

  class Handle implements FakeHandle {
    #path: string;
    #offset: number | null = 0;
    constructor(path: string) {
      this.#path = path;
      openHandles.add(this);
    }
    #data(): Uint8Array {
      if (this.#offset === null) throw new Error('the handle is closed');
      const data = files.get(this.#path);
      if (!data) throw new Error('the file was removed');
      return data;
    }
    readBytes(length: number): Uint8Array<ArrayBuffer> {
      const data = this.#data();
      fault('readBytes');
      const at = this.#offset as number;
      const out = data.slice(at, at + length) as Uint8Array<ArrayBuffer>;
      this.#offset = at + out.length;
      calls.push({ op: 'readBytes', path: this.#path, bytes: length });
      return out;
    }
    writeBytes(bytes: Uint8Array): void {
      const data = this.#data();
      fault('writeBytes');
      const at = this.#offset as number;
      const next = new Uint8Array(Math.max(data.length, at + bytes.length));
      next.set(data);
      next.set(bytes, at); // copied now, as the native call copies before it returns
      files.set(this.#path, next);
      this.#offset = at + bytes.length;
      calls.push({ op: 'writeBytes', path: this.#path, bytes: bytes.length });
    }
    get offset(): number | null {
      return this.#offset;
    }
    set offset(value: number | null) {
      if (value !== null && this.#offset !== null) this.#offset = value;
    }
    get size(): number | null {
      return this.#offset === null ? null : (files.get(this.#path)?.length ?? null);
    }
    close(): void {
      // Released even when closing reports an error, as POSIX close(2) releases the descriptor.
      this.#offset = null;
      openHandles.delete(this);
      fault('close');
    }
  }

  class File implements FakeFile {
    #path: string;
    constructor(...uris: (string | { uri: string })[]) {
      this.#path = join(uris);
      if (this.#path.endsWith('/')) throw new Error('tried to create a file with a directory path');
    }
    get uri(): string {
      return `${PREFIX}${encodeURI(this.#path)}`;
    }
    get exists(): boolean {
      return files.has(this.#path);
    }
    get size(): number {
      return files.get(this.#path)?.length ?? 0;
    }
    create(options: { intermediates?: boolean; overwrite?: boolean } = {}): void {
      fault('create');
      if (this.exists && !options.overwrite) throw new Error('File already exists');
      const parent = parentOf(this.#path);
      if (!dirs.has(parent)) {
        if (!options.intermediates) throw new Error(`the folder ${parent} does not exist`);
        new Directory(parent).create({ intermediates: true, idempotent: true });
      }
      files.set(this.#path, new Uint8Array(0));
    }
    open(): FakeHandle {
      fault('open');
      if (!this.exists) throw new Error(`${this.#path} does not exist`);
      return new Handle(this.#path);
    }
    move(destination: { uri: string }): void {
      fault('move');
      const data = files.get(this.#path);
      if (!data) throw new Error(`${this.#path} does not exist`);
      const target =
        destination instanceof Directory
          ? `${pathOf(destination.uri).replace(/\/+$/, '')}/${this.#path.split('/').pop()}`
          : pathOf(destination.uri);
      if (files.has(target) || dirs.has(`${target}/`)) throw new Error(`${target} already exists`);
      if (!dirs.has(parentOf(target))) throw new Error(`the folder ${parentOf(target)} does not exist`);
      files.delete(this.#path);
      files.set(target, data);
      this.#path = target;
    }
    delete(): void {
      fault('delete');
      if (!files.delete(this.#path)) throw new Error('path does not exist');
    }
    bytesSync(): Uint8Array {
      const data = files.get(this.#path);
      if (!data) throw new Error(`${this.#path} does not exist`);
      return data.slice();
    }
    write(content: Uint8Array): void {
      files.set(this.#path, content.slice());
    }
  }

  class Directory implements FakeDirectory {
    readonly #path: string;
    constructor(...uris: (string | { uri: string })[]) {
      this.#path = `${join(uris).replace(/\/+$/, '')}/`;
    }
    get uri(): string {
      return `${PREFIX}${encodeURI(this.#path)}`;
    }
    get exists(): boolean {
      return dirs.has(this.#path);
    }
    create(options: { intermediates?: boolean; idempotent?: boolean } = {}): void {
      fault('mkdir');
      if (this.exists) {
        if (options.idempotent) return;
        throw new Error('Directory already exists');
      }
      const parent = parentOf(this.#path);
      if (!dirs.has(parent)) {
        if (!options.intermediates) throw new Error(`the folder ${parent} does not exist`);
        new Directory(parent).create({ intermediates: true, idempotent: true });
      }
      dirs.add(this.#path);
    }
    delete(): void {
      fault('delete');
      if (!dirs.has(this.#path)) throw new Error('path does not exist');
      for (const path of [...files.keys()]) if (path.startsWith(this.#path)) files.delete(path);
      for (const path of [...dirs]) if (path.startsWith(this.#path)) dirs.delete(path);
    }
    list(): (FakeDirectory | FakeFile)[] {
      if (!this.exists) throw new Error(`${this.#path} does not exist`);
      const direct = (path: string) =>
        path.startsWith(this.#path) && !path.slice(this.#path.length).replace(/\/$/, '').includes('/');
      return [
        ...[...dirs].filter((path) => path !== this.#path && direct(path)).map((path) => new Directory(path)),
        ...[...files.keys()].filter(direct).map((path) => new File(path)),
      ];
    }
  }

  const cache = new Directory('/cache/');
  // biome-ignore lint/complexity/noStaticOnlyClass: expo-file-system's Paths is this: a class of static getters.
  class Paths {
    static get cache(): FakeDirectory {
      return cache;
    }
  }
  return {
    File,
    Directory,
    Paths,
    files,
    dirs,
    faults,
    calls,
    openHandles,
  };
}
