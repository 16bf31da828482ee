import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** Debian's `chromium` package; `.ci/run` installs it. */
export const CHROMIUM_PATH = process.env.AGENTV_CHROMIUM ?? '/usr/bin/chromium';

/**
 * True when the browser tests can run; false locally without Chromium, and in `.ci/run`'s second
 * pass (`AGENTV_SKIP_EXTERNAL_PROGRAMS=1`: what Chromium draws does not depend on the Node that
 * wrote the page), never in its first.
 */
export function chromiumAvailable(): boolean {
  if (process.env.AGENTV_SKIP_EXTERNAL_PROGRAMS === '1') {
    console.warn('skipping browser tests: AGENTV_SKIP_EXTERNAL_PROGRAMS=1');
    return false;
  }
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.AGENTV_REQUIRE_CHROMIUM === '1') {
    throw new Error(
      `${CHROMIUM_PATH} is missing, and AGENTV_REQUIRE_CHROMIUM=1 says the browser tests must run (apt-get install chromium)`,
    );
  }
  console.warn(
    `skipping browser tests: ${CHROMIUM_PATH} not found (install Debian's chromium package, or set AGENTV_CHROMIUM)`,
  );
  return false;
}

/** The parts of playwright-core's API the tests use. */
export interface BrowserPage {
  on(event: 'console', listener: (message: { type(): string; text(): string }) => void): void;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  on(event: 'request', listener: (request: { url(): string }) => void): void;
  on(
    event: 'dialog',
    listener: (dialog: { message(): string; dismiss(): Promise<void> }) => void,
  ): void;
  goto(url: string): Promise<unknown>;
  /** Evaluates a JavaScript expression in the page (the app's types have no DOM). */
  evaluate<T>(expression: string): Promise<T>;
  locator(selector: string): BrowserLocator;
  /** A PNG of the viewport, or of the whole page with `fullPage` (as wide as the page scrolls). */
  screenshot(options?: { path?: string; fullPage?: boolean }): Promise<Buffer>;
  close(): Promise<void>;
}

export interface BrowserLocator {
  click(): Promise<void>;
  fill(value: string): Promise<void>;
  count(): Promise<number>;
  textContent(): Promise<string | null>;
  allTextContents(): Promise<string[]>;
  isVisible(): Promise<boolean>;
  getAttribute(name: string): Promise<string | null>;
  first(): BrowserLocator;
  nth(index: number): BrowserLocator;
  locator(selector: string): BrowserLocator;
  waitFor(options?: { state?: 'visible' | 'hidden' | 'attached' }): Promise<void>;
}

export interface Browser {
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<BrowserPage>;
  close(): Promise<void>;
}

/** Launches headless Chromium through playwright-core, with nothing that reaches the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
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
