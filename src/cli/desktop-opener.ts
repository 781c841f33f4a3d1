/**
 * `play --open`: hands a verified file (or the `--serve` URL) to the desktop's opener (`xdg-open`,
 * `open`, `explorer`), but only for the kinds of file a viewer shows without running anything.
 *
 * Why an allowlist: the file's extension comes from the message (its MIME type, else its display name),
 * and the sender chooses both. `xdg-open`, `open` and `explorer` run what they are given: a `.desktop`
 * launcher, a `.command` script, an `.exe`, `.bat` or `.lnk`, an `.html` or `.svg` page with script, a
 * `.jar`. So only photos, videos, audio, PDF and plain text are opened; anything else is saved (its
 * path is printed as always) and not opened, with a message saying why.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { extname } from 'node:path';
import { childEnvironment } from '../node/index.js';

/**
 * Extensions `play --open` opens (lower case, with the dot): pictures (not SVG: it may carry script),
 * video and audio containers, PDF, and plain text.
 */
export const OPENABLE_EXTENSIONS: ReadonlySet<string> = new Set([
  // Pictures.
  '.jpg',
  '.jpeg',
  '.png',
  '.gif',
  '.webp',
  '.avif',
  '.heic',
  '.heif',
  '.bmp',
  '.tif',
  '.tiff',
  // Video.
  '.mp4',
  '.m4v',
  '.mov',
  '.webm',
  '.mkv',
  '.avi',
  '.mpeg',
  '.mpg',
  '.3gp',
  '.ts',
  // Audio.
  '.mp3',
  '.m4a',
  '.aac',
  '.ogg',
  '.opus',
  '.wav',
  '.flac',
  '.weba',
  // Documents a viewer shows without running anything.
  '.pdf',
  '.txt',
  '.md',
  '.csv',
]);

/** The extension of a path or URL path, lower case with its dot (`''` when none). */
function extensionOf(target: string): string {
  const path = /^[a-z]+:\/\//i.test(target) ? new URL(target).pathname : target;
  return extname(path).toLowerCase();
}

/**
 * Opens `target` (a verified file's path, or a loopback URL ending in the file's name) with the
 * desktop opener when its extension is in {@link OPENABLE_EXTENSIONS}; otherwise writes why it was not
 * opened to stderr. Never throws: the file is verified and its path already printed, so a missing or
 * failing opener is a warning.
 *
 * @example
 * ```ts
 * openOnDesktop('/home/me/.cache/happy-media/media/3f9c….mp4'); // xdg-open …
 * openOnDesktop('/home/me/.cache/happy-media/media/x.desktop');  // not opened: … saved at …
 * ```
 */
export function openOnDesktop(target: string): void {
  const extension = extensionOf(target);
  if (!OPENABLE_EXTENSIONS.has(extension)) {
    process.stderr.write(
      `happy-media: not opened: ${extension === '' ? 'a file without an extension' : `a ${extension} file`} is not a photo, video, audio, PDF or text file, and the desktop may run it; it is saved at ${target}\n`,
    );
    return;
  }
  const opener =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  // An argument array (no shell), detached so the player outlives us. The opener and the player it
  // starts outlive the CLI, so they get the environment without our keys and tokens.
  const child = spawn(opener, [target], { detached: true, stdio: 'ignore', env: childEnvironment() });
  child.on('error', (error) =>
    process.stderr.write(`happy-media: warning: could not run ${opener}: ${error.message}\n`),
  );
  child.unref();
}
