#!/usr/bin/env node
/**
 * The `happy-media` command of the happy-media-cli package: it runs the command line the happy-media
 * package builds (its package.json `bin`), unchanged. This package exists for what it installs beside it:
 * the Node media stack the CLI uses (ffmpeg/ffprobe, sharp, libheif, file-type, the S3 client, commander,
 * cli-progress), which happy-media itself keeps as optional peer dependencies so that an app installing it
 * gets none of them.
 */
import { readFileSync } from 'node:fs';

const manifestUrl = import.meta.resolve('happy-media/package.json');
const manifest = JSON.parse(readFileSync(new URL(manifestUrl), 'utf8'));
await import(new URL(manifest.bin['happy-media'], manifestUrl).href);
