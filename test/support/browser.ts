import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';

/** Debian's Chromium (no browser download): CHROMIUM_PATH or /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where screenshots go (gitignored): test-artifacts/<folder>/, one folder per browser spec. */
export const ARTIFACTS_ROOT = join(__dirname, '..', '..', 'test-artifacts');
export const ARTIFACTS_DIR = join(ARTIFACTS_ROOT, 'dashboard');

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH.`);
  }
  // Headless, as root in a container, on a closed network: no sandbox, GPU, QUIC or background
  // traffic. Playwright gives every launch a new, empty profile (user data dir).
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Screenshots of the current page at laptop and phone width (full page unless told otherwise: a modal
 * dialog's backdrop covers only the viewport); returns their paths.
 */
export async function screenshots(page: Page, name: string, options: { fullPage?: boolean; dir?: string } = {}): Promise<string[]> {
  const dir = options.dir ?? ARTIFACTS_DIR;
  mkdirSync(dir, { recursive: true });
  const original = page.viewportSize() ?? LAPTOP;
  const paths: string[] = [];
  for (const [label, size] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.waitForTimeout(150); // layout settles
    // Nothing may make the page wider than the screen (a sideways scroll on a phone).
    const overflow = await page.evaluate<string[]>(`(() => {
      const width = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth <= width) return [];
      return [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > width + 0.5 && el.getClientRects().length > 0)
        // Inside a scrolling or clipping box (the menu) is not the page's overflow.
        .filter((el) => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return false; return true; })
        .slice(-5)
        .map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right) + 'px');
    })()`);
    if (overflow.length > 0) throw new Error(`${name} at ${label} width (${size.width}px) is wider than the screen: ${overflow.join(', ')}`);
    const path = join(dir, `${name}-${label}.png`);
    await page.screenshot({ path, fullPage: options.fullPage ?? true });
    paths.push(path);
  }
  await page.setViewportSize(original);
  return paths;
}
