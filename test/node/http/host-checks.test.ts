/** The shared Host/Origin check (DNS rebinding) and the listen-host check (no DNS lookup for an IP shape). */
import { describe, expect, it } from 'vitest';
import { isAllowedHost, isCrossSiteRequest, parseHostHeader } from '../../../src/node/http/allowed-host.js';
import { checkListenHost } from '../../../src/node/http/listen-host.js';

describe('isAllowedHost', () => {
  const policy = { port: 8787, names: ['media.lan'] };
  it.each([
    ['127.0.0.1:8787', true],
    ['127.9.9.9:8787', true],
    ['LOCALHOST:8787', true],
    ['[::1]:8787', true],
    ['media.lan:8787', true],
    ['localhost.:8787', true],
    ['localhost:8788', false],
    ['localhost', false],
    ['rebind.evil.example:8787', false],
    ['localhost.evil.example:8787', false],
    ['10.0.0.2:8787', false],
    ['127.0.0.1:8787:1', false],
    ['[::1', false],
  ])('%s → %s', (host, allowed) => {
    expect(isAllowedHost(host, policy)).toBe(allowed);
  });
  it('accepts any IP, but no unlisted name, when bound to every interface', () => {
    expect(isAllowedHost('10.0.0.2:8787', { port: 8787, anyAddress: true })).toBe(true);
    expect(isAllowedHost('box.evil.example:8787', { port: 8787, anyAddress: true })).toBe(false);
  });
  it('a missing Host is refused', () => {
    expect(isAllowedHost(undefined, policy)).toBe(false);
    expect(parseHostHeader('')).toBeUndefined();
  });
});

describe('isCrossSiteRequest', () => {
  const policy = { port: 8787 };
  it('lets non-browser and same-origin requests through', () => {
    expect(isCrossSiteRequest({}, policy)).toBe(false);
    expect(
      isCrossSiteRequest({ origin: 'http://127.0.0.1:8787', 'sec-fetch-site': 'same-origin' }, policy),
    ).toBe(false);
    expect(isCrossSiteRequest({ 'sec-fetch-site': 'none' }, policy)).toBe(false);
  });
  it('refuses other origins, null, and cross-site or same-site fetches', () => {
    for (const headers of [
      { origin: 'https://evil.example' },
      { origin: 'http://127.0.0.1:9999' },
      { origin: 'null' },
      { origin: 'file:///x' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      expect(isCrossSiteRequest(headers, policy), JSON.stringify(headers)).toBe(true);
    }
  });
});

describe('checkListenHost', () => {
  it('returns valid addresses and names (IPv6 without brackets)', () => {
    expect(checkListenHost('127.0.0.1')).toBe('127.0.0.1');
    expect(checkListenHost('[::1]')).toBe('::1');
    expect(checkListenHost('0.0.0.0')).toBe('0.0.0.0');
    expect(checkListenHost('media.lan')).toBe('media.lan');
  });
  it('refuses IP-shaped values that are no IP, and malformed names, synchronously (no lookup)', () => {
    for (const host of ['256.1.1.1', '1.2.3', '1.2.3.4.5', '::g', 'a b', '-x.example', '', 'x'.repeat(254)]) {
      expect(() => checkListenHost(host), host).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      );
    }
  });
});
