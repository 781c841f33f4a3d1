/**
 * Demo step 4: open the embedded local store and start the HTTP media server in-process.
 *
 * @module
 */
import { HttpBlobStore, LocalBlobStore, startMediaServer } from '../../node/index.js';
import type { DemoFiles, DemoStores } from './demo-state.js';
import type { DemoRecorder } from './report.js';

/** A running server the caller must close when the demo ends. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * Opens both stores; `undefined` when the step failed. `onServer` receives the HTTP server as soon as it
 * listens, so the caller closes it even if the rest of the step (or demo) fails.
 */
export async function openStores(
  rec: DemoRecorder,
  files: DemoFiles,
  onServer: (server: Closable) => void,
): Promise<DemoStores | undefined> {
  return rec.step('Stores: embedded local store and the HTTP media server (in-process)', async (s) => {
    const local = new LocalBlobStore(files.localStore);
    const server = await startMediaServer({ dir: files.serverStore, host: '127.0.0.1', port: 0 });
    onServer(server);
    s.info(`local store  ${files.localStore}`);
    s.info(`HTTP server  ${server.url} (loopback; stores ciphertext only) → ${files.serverStore}`);
    return { local, http: new HttpBlobStore(server.url) };
  });
}
