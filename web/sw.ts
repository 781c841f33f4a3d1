/**
 * The demo's Service Worker: the package's streaming worker (`happy-media/web`), installed on `self`.
 * Bundled next to the page as `sw.js`. See src/web/service-worker.ts.
 *
 * @module
 */
import { installMediaServiceWorker, type ServiceWorkerScopeLike } from '../src/web/index.js';

declare const self: ServiceWorkerGlobalScope;

installMediaServiceWorker(self as unknown as ServiceWorkerScopeLike);
