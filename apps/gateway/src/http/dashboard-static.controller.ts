import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { NotFoundError, ServiceUnavailableError } from '@gen/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
/** Relative paths of files we may serve: no dot segments, no backslashes, nothing odd. */
const SAFE_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

function decodePath(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * Content-Security-Policy of the dashboard's pages: only our own scripts and styles, outputs from
 * the content host, no framing (clickjacking), no plugins, no foreign form targets. The 3D preview
 * (three.js's GLTFLoader) fetches the .glb from the content host and turns embedded textures into
 * blob: URLs, hence those in connect-src and img-src.
 */
export function dashboardCsp(contentOrigins: string[]): string {
  const content = ["'self'", ...contentOrigins].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${content} data: blob:`,
    `media-src ${content}`,
    `connect-src ${content} blob:`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The built dashboard (apps/dashboard, Vite) under /dashboard: hashed assets cached for a year, and
 * index.html for every page path, so that the app's own routes survive a reload.
 */
@Controller('dashboard')
export class DashboardStaticController {
  private readonly root: string;
  private readonly csp: string;
  private readonly publicSourceMaps: boolean;

  constructor(@Inject(DASHBOARD_SETTINGS) settings: DashboardSettings) {
    this.root = resolve(settings.staticDir);
    this.csp = dashboardCsp(settings.contentOrigins);
    this.publicSourceMaps = settings.publicSourceMaps;
  }

  @Get()
  index(@Res() reply: FastifyReply): Promise<void> {
    return this.sendIndex(reply);
  }

  @Get('*')
  async file(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const path = decodePath((request.url.split('?')[0] ?? '').replace(/^\/dashboard\/?/, ''));
    if (path === null) throw new NotFoundError('No such file.');
    if (path === 'api' || path.startsWith('api/')) throw new NotFoundError('No such dashboard API route.');
    if (path === '' || !extname(path)) return this.sendIndex(reply);
    if (!SAFE_PATH.test(path)) throw new NotFoundError('No such file.');
    // Source maps hold the dashboard's whole source: built and kept on disk, published only on request.
    if (extname(path) === '.map' && !this.publicSourceMaps) throw new NotFoundError('No such file.');
    const file = join(this.root, path);
    if (!file.startsWith(this.root + sep)) throw new NotFoundError('No such file.');
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) throw new NotFoundError('No such file.');
    const immutable = path.startsWith('assets/');
    // The build names no map in its scripts (Vite's `hidden` source maps): when they are public,
    // this header is how a browser's developer tools find them.
    if (this.publicSourceMaps && extname(path) === '.js') void reply.header('SourceMap', `${path.slice(path.lastIndexOf('/') + 1)}.map`);
    await this.headers(reply)
      .header('Content-Type', CONTENT_TYPES[extname(path)] ?? 'application/octet-stream')
      .header('Content-Length', String(info.size))
      .header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(createReadStream(file));
  }

  private async sendIndex(reply: FastifyReply): Promise<void> {
    const html = await readFile(join(this.root, 'index.html')).catch(() => null);
    if (!html) throw new ServiceUnavailableError('The dashboard is not built on this server: run `npm run build`.', 60);
    await this.headers(reply).header('Content-Type', CONTENT_TYPES['.html']).header('Cache-Control', 'no-cache').send(html);
  }

  private headers(reply: FastifyReply): FastifyReply {
    return reply
      .header('Content-Security-Policy', this.csp)
      .header('X-Frame-Options', 'DENY')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .header('Cross-Origin-Opener-Policy', 'same-origin');
  }
}
