/**
 * The largest single write this library hands the kernel.
 *
 * On Linux 6.x, ext4 (and other file systems with large folios) sizes page-cache folios by the write: a
 * write of 1 MiB or more at an aligned offset allocates huge folios, which costs compaction and zeroing
 * when memory is fragmented: several times the system time of the same bytes in 256 KiB writes. The
 * worker threads of `decryptFileParallel` write 4 MiB-aligned runs, so without this cap decryption paid
 * it and encryption (whose runs sit 56 bytes off) did not (figures: docs/blob-format.md, "Write size").
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */

/** Bytes per write call at most: large enough to amortise the call, small enough to avoid huge folios. */
export const MAX_WRITE_CALL_BYTES = 256 * 1024;
