/**
 * happy-media, internal entry: the pieces of the library the CLI uses that are not public API. It is not
 * in package.json `exports` (applications cannot import it) and carries no compatibility promise;
 * anything here that applications need belongs in `happy-media/node` instead.
 *
 * Rule: the CLI (`src/node/cli/`) imports the library only from the public entries (`src/index.ts`,
 * `src/node/index.ts`) and from this file, by name. Renaming an export is then a type error in its caller,
 * never a stale deep import. (The CLI's own modules and the demo it loads on demand are application code,
 * not library.)
 *
 * @packageDocumentation
 */
// Node's runtime, installed on import (as the Node entry does): the CLI runs on it.
import './runtime/index.js';

// The streaming blob engines behind `encrypt`/`decrypt` (the public API wraps them as streams and files),
// the loop that drives one, and the one sequential file path (read ahead, written behind, all or nothing).
export { BlobDecryptor, BlobEncryptor, pumpEngine } from '../core/blob/stream.js';
// Byte helpers of the CLI's options and inputs (`--context-hex`, a whole v1 input, map's buffered input).
export { equalBytes, fromHex, joinBytes } from '../core/bytes.js';
// `account import`: credentials pasted on stdin, bounded and refused as a secret file's are.
export { MAX_CREDENTIALS_TEXT_LENGTH } from '../core/happy/credentials.js';
// `send`: the metadata strip's refusals, which --keep-metadata avoids (the CLI's hint).
export { isMetadataStripRefusal } from '../core/media/strip/strip-refusal.js';
// Playback: a message's plaintext size before anything is downloaded (play refuses a file over its cache).
export { expectedPlaintextSize } from '../core/playback/download-media.js';
export { toMediaRequest } from '../core/playback/media-request.js';
export { DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS } from '../core/playback/resumable-download.js';
// The plaintext size of a ref's media, in one attachment or in parts (play's cache check).
export { storedMediaSize } from '../core/playback/stored-media.js';
// The defaults the CLI prints in its help (callers read them in the options' TSDoc; they are not exports).
export { DEFAULT_MAX_LINE_BYTES } from '../core/protocol/jsonl.js';
export { DEFAULT_TIME_TOLERANCE_MS } from '../core/protocol/stream-validator.js';
// Timeouts from user values: checked, and clamped to what a timer can wait (2^31 − 1 ms).
export { checkedTimeoutMs } from '../core/timeout.js';
// What a bearer token may be (visible ASCII: it goes in a header).
export { checkBearerToken } from '../core/transport/bearer-token.js';
// The one `ERR_UNREADABLE_INPUT` for an input path that cannot be read.
export { unreadableInput } from '../core/unreadable-input.js';
export { engineToFile } from './blob/files.js';
// From this size on, `encrypt`/`decrypt` of a file use the worker threads.
export { PARALLEL_FILE_THRESHOLD } from './blob/parallel-files.js';
export { writePlaintextRange } from './blob/plaintext-range.js';
export { diskError } from './fs/disk-error.js';
// Private files: all-or-nothing writes and the sweep of crash leftovers.
export { writeAfterCompletion, writeFileAllOrNothing } from './fs/output-file.js';
export { sweepPendingRecords } from './fs/pending-record.js';
export { readFileAhead } from './fs/read-ahead.js';
export { sweepTempRoot } from './fs/sweep.js';
export { NOT_A_REGULAR_FILE, readFailureReason } from './fs/unreadable-input.js';
export { credentialsFromText } from './happy/credentials-file.js';
// `serve --host`: loopback unless told otherwise.
export { checkListenHost } from './http/listen-host.js';
// defaultCacheDir is public too; listed here so every CLI start can sweep without loading the Node entry.
export { defaultCacheDir, sweepCacheLeftovers } from './playback/media-cache.js';
// Child processes: the environment without secrets.
export { childEnvironment } from './process/child-environment.js';
export { forwardSignalsToChildren } from './process/child-processes.js';
export { DEFAULT_MAX_UPLOAD_BYTES } from './storage/media-server.js';
