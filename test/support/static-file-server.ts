import { listen } from './listen.js';

/*
 * A static file server, as `python3 -m http.server` is: GET of a known path gives its content,
 * anything else a 404 HTML page in python's words ("Error response"). It knows nothing of API
 * keys or of the service; a CLI pointed at it must never take its 404 for "no such event".
 * With `unsupportedMethods: true` it answers any method but GET and HEAD as python's does: 501,
 * an HTML page saying "Unsupported method".
 */

export interface StaticServer {
  url: string;
  /** Every request target received, as sent. */
  requests: string[];
  close(): Promise<void>;
}

const NOT_FOUND_PAGE = `<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: 404</p>
        <p>Message: File not found.</p>
        <p>Error code explanation: 404 - Nothing matches the given URI.</p>
    </body>
</html>
`;

const unsupportedPage = (method: string) =>
  NOT_FOUND_PAGE.replace('Error code: 404', 'Error code: 501')
    .replace('File not found.', `Unsupported method ('${method}')`)
    .replace('404 - Nothing matches the given URI.', '501 - Server does not support this operation.');

export async function startStaticFileServer(
  files: Record<string, string> = { '/index.html': '<html><title>Files</title></html>' },
  options: { unsupportedMethods?: boolean } = {},
): Promise<StaticServer> {
  const requests: string[] = [];
  const { url, close } = await listen((req, res) => {
    requests.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      const file = req.method === 'GET' ? files[(req.url ?? '/').split('?')[0]!] : undefined;
      if (file !== undefined) {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(Buffer.byteLength(file)) });
        res.end(file);
        return;
      }
      if (options.unsupportedMethods && req.method !== 'GET' && req.method !== 'HEAD') {
        const page = unsupportedPage(req.method ?? '');
        res.writeHead(501, {
          'content-type': 'text/html;charset=utf-8',
          'content-length': String(Buffer.byteLength(page)),
        });
        res.end(page);
        return;
      }
      // Without unsupportedMethods, a POST gets a 404 here, as many static servers give.
      res.writeHead(404, {
        'content-type': 'text/html;charset=utf-8',
        'content-length': String(Buffer.byteLength(NOT_FOUND_PAGE)),
      });
      res.end(NOT_FOUND_PAGE);
    });
  });
  return { url, requests, close };
}
