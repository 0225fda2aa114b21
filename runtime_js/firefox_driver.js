// A long-lived headless Firefox for webhal.runners.firefox, driven by puppeteer-core over
// WebDriver BiDi (stock Firefox; Playwright needs a patched build). Python talks to it over
// stdio, one JSON object a line: first { ready, version } (or { fatal }), then for each request
// { id, path, init?, start?, result, timeoutMs, screenshot?, fullPage } one reply
// { id, value } or { id, error, kind: 'timeout' | 'error' }, both with the page's console
// lines and uncaught errors. Each request gets a fresh page on the served root.
//
// Environment: WEBHAL_PUPPETEER (file URL of puppeteer-core's ESM entry), WEBHAL_FIREFOX (the
// executable), WEBHAL_ROOT_URL (the server), WEBHAL_FIREFOX_PREFS (JSON of extra prefs).

import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');

let browser;
try {
  const { default: puppeteer } = await import(process.env.WEBHAL_PUPPETEER);
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.WEBHAL_FIREFOX,
    headless: true,
    extraPrefsFirefox: JSON.parse(process.env.WEBHAL_FIREFOX_PREFS || '{}'),
    protocolTimeout: 0,
  });
  send({ ready: true, version: await browser.version() });
} catch (e) {
  send({ fatal: String(e && e.message || e) });
  process.exit(1);
}
browser.on('disconnected', () => { send({ fatal: 'Firefox disconnected' }); process.exit(1); });

async function serve(request) {
  const console = [];
  const errors = [];
  const page = await browser.newPage();
  // An uncaught error ends the wait at once, as the runner page's own listeners do.
  let thrown;
  const throws = new Promise((_, reject) => { thrown = reject; });
  throws.catch(() => {});
  page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => {
    errors.push(String(e && e.message || e));
    console.push(`pageerror: ${e && e.message || e}`);
    thrown(new Error(`uncaught: ${e && e.message || e}`));
  });
  const timeout = request.timeoutMs;
  try {
    if (request.init) await page.evaluateOnNewDocument(request.init);
    await page.goto(process.env.WEBHAL_ROOT_URL + request.path, { timeout });
    if (request.start) {
      const [source, arg] = request.start;
      await page.evaluate(`(${source})(${JSON.stringify(arg)})`);
    }
    await Promise.race([
      page.waitForFunction(`(${request.result}) !== undefined`, { timeout, polling: 50 }),
      throws]);
    const value = await page.evaluate(`(${request.result})`);
    if (request.screenshot) {
      await page.screenshot({ path: request.screenshot, fullPage: request.fullPage });
    }
    return { id: request.id, value, console, errors };
  } catch (e) {
    const kind = e && e.name === 'TimeoutError' ? 'timeout' : 'error';
    return { id: request.id, error: String(e && e.message || e), kind, console, errors };
  } finally {
    await page.close().catch(() => {});
  }
}

// One request at a time, in order: Python waits for each reply.
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  send(await serve(JSON.parse(line)));
}
await browser.close();
process.exit(0);
