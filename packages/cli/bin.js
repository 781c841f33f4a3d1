#!/usr/bin/env node
/**
 * The `happy-media` command of the happy-media-cli package: happy-media's command line as one file
 * (`dist/happy-media.js`, written by happy-media's scripts/bundle-cli.mjs when this package is packed),
 * which starts in half the time of the same code loaded module by module. Beside it this package
 * installs the Node media stack the CLI uses (ffmpeg/ffprobe, sharp, libheif, file-type, the S3 client,
 * commander, cli-progress), which happy-media itself keeps as optional peer dependencies so that an app
 * installing it gets none of them; the one file imports them from here at run time.
 */
await import('./dist/happy-media.js');
