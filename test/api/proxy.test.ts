import { describe, expect, it } from 'vitest';
import { proxyFor, proxyShown } from '../../src/api/proxy.js';

/*
 * Which proxy a URL goes through (src/api/proxy.ts), by undici's rules for HTTP(S)_PROXY and
 * NO_PROXY, so that doctor and the errors name the proxy the request really went to.
 */

const via = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env)?.from ?? null;

describe('proxyFor', () => {
  it('https:// takes HTTPS_PROXY, then https_proxy, then HTTP_PROXY; http:// only HTTP_PROXY; an empty variable is unset', () => {
    expect(via('https://a.example', { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://q:2' })).toBe('HTTPS_PROXY');
    expect(via('https://a.example', { https_proxy: 'http://p:1', HTTP_PROXY: 'http://q:2' })).toBe('https_proxy');
    expect(via('https://a.example', { HTTPS_PROXY: '', HTTP_PROXY: 'http://q:2' })).toBe('HTTP_PROXY');
    expect(via('http://a.example', { HTTPS_PROXY: 'http://p:1' })).toBeNull();
    expect(via('http://a.example', { http_proxy: 'http://q:2' })).toBe('http_proxy');
  });

  it('NO_PROXY: the host or a subdomain, with or without a leading dot or *., a port only when it matches, * for all', () => {
    const env = (noProxy: string) => ({ HTTPS_PROXY: 'http://p:1', NO_PROXY: noProxy });
    expect(via('https://fraud.example.com', env('example.com'))).toBeNull();
    expect(via('https://fraud.example.com', env('.example.com'))).toBeNull();
    expect(via('https://fraud.example.com', env('*.example.com'))).toBeNull();
    expect(via('https://fraud.example.com', env('other.com, localhost'))).toBe('HTTPS_PROXY');
    expect(via('https://fraud.example.com', env('fraud.example.com:8443'))).toBe('HTTPS_PROXY');
    expect(via('https://fraud.example.com:8443', env('fraud.example.com:8443'))).toBeNull();
    expect(via('https://fraud.example.com', env('fraud.example.com:443'))).toBeNull();
    expect(via('https://fraud.example.com', env('*'))).toBeNull();
    expect(via('https://notexample.com', env('example.com'))).toBe('HTTPS_PROXY');
  });
});

describe('proxyShown', () => {
  it('the host and port, never the user name or password', () => {
    expect(proxyShown('http://alice:s3cret@proxy.example:3128')).toBe('proxy.example:3128');
    expect(proxyShown('http://proxy.example')).toBe('proxy.example');
    expect(proxyShown('alice:s3cret@not a url')).toBe('not a url');
  });
});
