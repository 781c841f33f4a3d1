/**
 * Today's v1 attachment messages on the app: Happy's `file` event, alone or inside either session
 * wrapper, goes through the same downloadMedia (and openExpoMedia), `format: 'v1'` found from the event.
 * Its server name reaches a URL function as it is (what `request-download` takes) and a store through
 * its `mediaRef` capability.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from '../../../src/core/bytes.js';
import { StorageError } from '../../../src/core/errors.js';
import { encryptV1Blob, happyFileEvent, wrapForApp, wrapForCli } from '../../../src/core/happy/index.js';
import { downloadMedia, memorySink } from '../../../src/core/playback/index.js';
import { openExpoMedia } from '../../../src/expo/index.js';
import { rejectionCodeOf } from '../../helpers/errors.js';
import { type FakeFile, fakeExpoFileSystem } from '../../helpers/fake-expo-file-system.js';
import { fakeFetch } from '../../helpers/fake-fetch.js';
import { MemoryStore } from '../../node/playback/helpers/memory-store.js';
import { testBytes } from '../blob/blob-test-utils.js';

const key = randomBytes(32);
const UUID = '3f2a9c1e-7b4d-4e8a-9c6f-1a2b3c4d5e6f';
const SERVER_REF = `sessions/sess_1/attachments/${UUID}.enc`;
const plain = testBytes(20_000, 31);
const blob = encryptV1Blob(plain, key);
const event = happyFileEvent({
  role: 'user',
  ref: SERVER_REF,
  name: 'scan.pdf',
  size: plain.length,
  mimeType: 'application/pdf',
});
const URL_OF = 'https://files.example/signed';

/** A store that names blobs as Happy's server does (HappyServerStore's mapping capability). */
function serverStore(session = 'sess_1') {
  const store = Object.assign(new MemoryStore(), {
    mediaRef(serverRef: string) {
      const match = new RegExp(`^sessions/${session}/attachments/([0-9a-f-]{36})\\.enc$`).exec(serverRef);
      if (!match) throw new StorageError('another session', { code: 'ERR_INVALID_REF' });
      return `media/${match[1]}`;
    },
  });
  store.put(`media/${UUID}`, blob);
  return store;
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

describe('v1 file events through downloadMedia', () => {
  it.each([
    ['the bare event', event],
    ['in the app’s wrapper', wrapForApp(event)],
    ['in the CLI’s wrapper', wrapForCli(event)],
  ])('%s: a URL function gets the server name, the blob is opened as v1', async (_name, message) => {
    const asked: string[] = [];
    const server = fakeFetch({ [URL_OF]: blob });
    const bytes = await downloadMedia(message, {
      source: (ref) => {
        asked.push(ref);
        return URL_OF;
      },
      fetch: server.fetch,
      blobKey: key,
      sink: memorySink(),
    });
    expect(same(bytes, plain)).toBe(true);
    expect(new Set(asked)).toEqual(new Set([SERVER_REF]));
  });

  it('a store maps the server name with mediaRef; a store without it is told what to pass', async () => {
    const store = serverStore();
    const bytes = await downloadMedia(wrapForApp(event), { source: store, blobKey: key, sink: memorySink() });
    expect(same(bytes, plain)).toBe(true);
    expect(store.gets.every((g) => g.ref === `media/${UUID}`)).toBe(true);
    const plainStore = new MemoryStore();
    expect(
      await rejectionCodeOf(downloadMedia(event, { source: plainStore, blobKey: key, sink: memorySink() })),
    ).toBe('ERR_INVALID_ARGUMENT');
    expect(
      await rejectionCodeOf(
        downloadMedia(event, { source: serverStore('other'), blobKey: key, sink: memorySink() }),
      ),
    ).toBe('ERR_INVALID_REF');
  });

  it('the event’s size is checked (it is authenticated by its envelope); a wrong key fails', async () => {
    const lying = happyFileEvent({ role: 'user', ref: SERVER_REF, name: 'scan.pdf', size: plain.length + 1 });
    const source = () => URL_OF;
    const fetch = fakeFetch({ [URL_OF]: blob }).fetch;
    expect(
      await rejectionCodeOf(downloadMedia(lying, { source, fetch, blobKey: key, sink: memorySink() })),
    ).toBe('ERR_DECRYPTION_FAILED');
    expect(
      await rejectionCodeOf(
        downloadMedia(event, { source, fetch, blobKey: randomBytes(32), sink: memorySink() }),
      ),
    ).toBe('ERR_DECRYPTION_FAILED');
  });

  it('a session record that is not a file event, or a bad ref, is refused before any request', async () => {
    const fetch = fakeFetch({}).fetch;
    for (const message of [
      wrapForApp({ id: 'x', time: 1, role: 'user', ev: { t: 'text', text: 'hi' } }),
      wrapForCli({ id: 'x', time: 1, role: 'user', type: 'text', text: 'hi' }),
      { ...event, ev: { ...event.ev, ref: 'sessions/../../etc/passwd' } },
    ]) {
      const code = await rejectionCodeOf(
        downloadMedia(message as never, { source: URL_OF, fetch, blobKey: key, sink: memorySink() }),
      );
      expect(['ERR_INVALID_ARGUMENT', 'ERR_INVALID_REF']).toContain(code);
    }
  });

  it('on the app: openExpoMedia opens the event into a named, verified, cached file', async () => {
    const fs = fakeExpoFileSystem();
    const server = fakeFetch({ [URL_OF]: blob });
    const options = { fileSystem: fs, source: () => URL_OF, fetch: server.fetch, blobKey: key };
    const file = await openExpoMedia(wrapForApp(event), options);
    expect(file.uri).toMatch(/\/scan\.pdf$/);
    expect(same((file as unknown as FakeFile).bytesSync(), plain)).toBe(true);
    const requests = server.requests.length;
    await openExpoMedia(event, options);
    expect(server.requests.length).toBe(requests);
  });
});
