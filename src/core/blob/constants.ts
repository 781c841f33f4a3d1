/**
 * The fixed numbers of the Cobblestone-256 format (C2SP chunked encryption with SHA-512 and
 * AES-256-GCM). Every offset in the blob layer is computed from these; no other file repeats a literal.
 *
 * @module
 */
/** Plaintext bytes per chunk. Every chunk but the last is exactly this long; the last is shorter (maybe empty). */
export const BLOB_CHUNK_SIZE = 16384;

/** Bytes of the AES-GCM authentication tag appended to every chunk. */
export const BLOB_TAG_SIZE = 16;

/** Bytes of the random salt at the start of every blob. */
export const BLOB_SALT_SIZE = 24;

/** Bytes of the key commitment that follows the salt. */
export const BLOB_COMMITMENT_SIZE = 32;

/** Bytes before the first chunk: salt (24) then commitment (32). */
export const BLOB_HEADER_SIZE = BLOB_SALT_SIZE + BLOB_COMMITMENT_SIZE;

/** Ciphertext bytes of one full chunk (plaintext plus tag). */
export const BLOB_SEALED_CHUNK_SIZE = BLOB_CHUNK_SIZE + BLOB_TAG_SIZE;

/** Bytes of the input key and of the derived AES-256 key. */
export const BLOB_KEY_SIZE = 32;

/** Bytes of the AES-GCM nonce (the base nonce and every per-chunk nonce). */
export const BLOB_NONCE_SIZE = 12;

/**
 * Chunk indexes must stay below 2^38 (C2SP's limit for 96-bit AES-GCM nonces with a 32-byte commitment
 * design). That is 4 PiB of plaintext: reaching it is a {@link LimitError}, not a wrap-around.
 */
export const BLOB_MAX_CHUNKS = 2 ** 38;

/** The AEAD name written into the HKDF info string, as C2SP spells it (IANA AEAD registry name). */
export const BLOB_AEAD_NAME = 'AEAD_AES_256_GCM';

/** The HKDF info prefix defined by C2SP chunked encryption v1. */
export const BLOB_INFO_PREFIX = 'c2sp.org/chunked-encryption@v1+';

/** Bytes derived per message: AEAD key (32), base nonce (12), commitment (32). */
export const BLOB_DERIVED_SIZE = BLOB_KEY_SIZE + BLOB_NONCE_SIZE + BLOB_COMMITMENT_SIZE;

/**
 * How many chunks one chunk-cipher call handles at most (1 MiB of plaintext). Bounds the memory of a batch and
 * the size of each piece the streams emit, whatever size the caller's pieces have.
 */
export const BLOB_BATCH_CHUNKS = 64;
