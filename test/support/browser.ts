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
    const path = join(dir, `${name}-${label}.png`);
    await page.screenshot({ path, fullPage: options.fullPage ?? true });
    paths.push(path);
  }
  await page.setViewportSize(original);
  return paths;
}
