/**
 * What the demo's steps hand to one another: the samples as they go through the pipeline, the keys, the
 * stores and the working files.
 *
 * @module
 */
import type { SessionKey } from '../../envelope.js';
import type { HttpBlobStore, LocalBlobStore, MediaProbe, SessionMessage } from '../../node/index.js';

/** One sample as it goes through the pipeline; later steps fill in what earlier ones learnt. */
export interface DemoItem {
  /** Short name in check lines: `photo`, `video` or `PDF`. */
  label: string;
  /** The sample file. */
  path: string;
  /** SHA-256 of what is sent (the sample with its metadata neutralised), hex: what every playback gives back. */
  sha256: string;
  /** Set by the probe step. */
  probe?: MediaProbe;
  /** Set by the send step: the v2 media message that points at the uploaded ciphertext. */
  message?: SessionMessage;
}

/** The session's keys, derived from the key tree by the keys step. */
export interface DemoKeys {
  /** Encrypts and decrypts the media blobs. */
  blobKey: Uint8Array;
  /** Seals and opens the messages (AES-256-GCM envelopes). */
  sealKey: SessionKey;
}

/** The two stores every sample is uploaded to. */
export interface DemoStores {
  /** The embedded default. */
  local: LocalBlobStore;
  /**
   * The in-process HTTP media server, holding a mirror of the same ciphertext under the same refs (its
   * `put` takes the ref the local store issued).
   */
  http: HttpBlobStore;
}

/** The notable paths inside the working directory (also the report's `files`). */
export interface DemoFiles extends Record<string, string> {
  samples: string;
  localStore: string;
  serverStore: string;
  stream: string;
  sealedStream: string;
}

/** The agent turn the media is sent in: one turn and the tool call that captured the media. */
export interface DemoTurn {
  turn: string;
  callId: string;
}
