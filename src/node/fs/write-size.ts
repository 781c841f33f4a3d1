/**
 * The largest single write this library hands the kernel.
 *
 * On Linux 6.x, ext4 (and other file systems with large folios) sizes page-cache folios by the write: a
 * write of 1 MiB or more at an aligned offset allocates huge folios, which costs compaction and zeroing
 * when memory is fragmented. Measured on the 2-core bench machine (kernel 6.18): writing 1 GiB in 4 MiB
 * aligned writes took 2-3 s of system time and ran at 300-1200 MiB/s; in 256 KiB writes 0.4 s and
 * 3-4 GiB/s. `happy-media decrypt` (4 MiB-aligned runs from the worker threads) ran at half the speed of
 * `encrypt` (whose runs are unaligned by the 56-byte header) until its writes were cut to this size.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */

/** Bytes per write call at most: large enough to amortise the call, small enough to avoid huge folios. */
export const MAX_WRITE_CALL_BYTES = 256 * 1024;
