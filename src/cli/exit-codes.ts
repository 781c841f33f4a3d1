/**
 * Exit statuses of the `happy-media` command line, in a module of their own so that `main.ts` needs
 * nothing but commander to answer `--help` (the error formatting in run-action.ts loads the library's
 * errors).
 *
 * @module
 */

/** Exit status of a failed operation. */
export const EXIT_FAILURE = 1;
/** Exit status of bad usage (unknown option, missing argument, bad value). */
export const EXIT_USAGE = 2;
