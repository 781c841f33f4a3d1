/**
 * Headless Chromium for the suites that measure in a page (browser, expo): the tools they need, and a page
 * served from loopback with the suite's bundle and data, its `happyBench` global ready.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SkipSuite } from './context.js';

/** Flags for a quiet, sandbox-less headless Chromium (root in CI, no network chatter). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** What a page suite needs: Chromium's path, esbuild and playwright-core. */
export interface ChromiumTools {
  chromium: string;
  esbuild: typeof import('esbuild');
  playwright: typeof import('playwright-core');
}

/**
 * Finds Chromium (`CHROMIUM_PATH`, else Debian's) and loads esbuild and playwright-core.
 *
 * @throws {SkipSuite} when one is missing, saying which and how to get it.
 */
export async function chromiumTools(): Promise<ChromiumTools> {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) throw new SkipSuite(`${chromium} not found (apt-get install chromium)`);
  try {
    return { chromium, esbuild: await import('esbuild'), playwright: await import('playwright-core') };
  } catch {
    throw new SkipSuite('esbuild or playwright-core is not installed (dev dependencies)');
  }
}

/** A page with the suite's bundle loaded; `close` ends the browser and the server. */
export interface BenchPage {
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/**
 * Serves `/` (a page loading `/bench.js`), `/bench.js` (`bundle`) and `files` from loopback, opens the page
 * in Chromium (with `gc()` in the page, so each timed run can start without earlier runs' garbage) and
 * waits until the bundle has set `globalThis.happyBench`.
 */
export async function openBenchPage(
  tools: ChromiumTools,
  bundle: string,
  files: Record<string, Uint8Array>,
): Promise<BenchPage> {
  const routes: Record<string, [string, string | Uint8Array]> = {
    '/': [
      'text/html',
      '<!doctype html><meta charset="utf-8"><script type="module" src="/bench.js"></script>',
    ],
    '/bench.js': ['text/javascript', bundle],
  };
  for (const [path, bytes] of Object.entries(files)) routes[path] = ['application/octet-stream', bytes];
  const server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': route[0], 'cache-control': 'no-store' }).end(route[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const closeServer = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  let browser: Browser | undefined;
  try {
    browser = await tools.playwright.chromium.launch({
      executablePath: tools.chromium,
      args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'],
      timeout: 60_000,
    });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => 'happyBench' in globalThis, undefined, { timeout: 30_000 });
    const opened = browser;
    return {
      browser: opened,
      page,
      close: async () => {
        await opened.close();
        await closeServer();
      },
    };
  } catch (error) {
    await browser?.close();
    await closeServer();
    throw error;
  }
}
