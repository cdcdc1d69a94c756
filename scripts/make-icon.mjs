#!/usr/bin/env node
// Renders the extension's marketplace icon, resources/icon.png (256 x 256), from the SVG below with
// Chromium through playwright-core (the browser of the end-to-end tier: scripts/install-e2e-tools.sh).
// The picture is the activity-bar glyph (resources/tsq.svg: a database with a magnifier) in white on
// a blue rounded square. Run it again after changing the SVG:  node scripts/make-icon.mjs
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const SIZE = 256;
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 24 24">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#2b6fd6"/><stop offset="1" stop-color="#1a4596"/></linearGradient></defs>
  <rect x="0" y="0" width="24" height="24" rx="4.5" fill="url(#g)"/>
  <g transform="translate(2.4 2.6) scale(0.8)" fill="none" stroke="#ffffff" stroke-width="1.7" stroke-linecap="round" stroke-linejoin="round">
    <ellipse cx="10" cy="5" rx="7" ry="2.5"/>
    <path d="M3 5v10c0 1.4 3.1 2.5 7 2.5"/>
    <path d="M17 5v4"/>
    <path d="M3 10c0 1.4 3.1 2.5 7 2.5"/>
    <circle cx="16.5" cy="15.5" r="3.5" stroke="#ffd54a"/>
    <path d="M19 18l3 3" stroke="#ffd54a"/>
  </g>
</svg>`;

const browser = await chromium.launch({ executablePath: process.env.TSQ_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'], headless: true });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync(join(root, 'resources', 'icon.png'), png);
  console.log(`resources/icon.png: ${png.length} bytes`);
} finally {
  await browser.close();
}
