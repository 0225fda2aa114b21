// The profiler's report in JavaScript (packages built for a target with the feature
// `profile`): p.profile() reads the text the wasm runtime writes (webhal_profiler_report_text,
// Halide's report format: webhal/codegen/llvm/profiler.py) and parses it here into data;
// drawProfile() draws it as bars (the demo page).

const HEAD = /^(\S.*)\n total time: ([\d.]+) ms {2}samples: (\d+) {2}runs: (\d+) {2}time per run: ([\d.]+) ms$/gm;
const ROW = /^ {4}(.+?): +([\d.]+)ms +\( ?([\d.]+)%\)/;
const SECTION = /^ {2}\[(.+?) :+ +[\d.]+ms +\( ?[\d.]+%\) ::::\]$/;

/**
 * The pipelines of a report: [{ name, runs, totalMs, perRunMs, threads, sections }], where
 * sections maps "funcs" (and, where the report has them, "gpu kernels", "buffer copies to
 * device", ...) to rows [{ name, ms, percent }], ms per run.
 */
export function parseProfile(text) {
  const heads = [...text.matchAll(HEAD)];
  return heads.map((m, i) => {
    const end = i + 1 < heads.length ? heads[i + 1].index : text.length;
    const body = text.slice(m.index + m[0].length, end);
    const sections = {};
    let section = 'funcs';
    let threads = 1;
    for (const line of body.split('\n')) {
      const s = SECTION.exec(line);
      const r = ROW.exec(line);
      const t = /^ average threads used: ([\d.]+)/.exec(line);
      if (s) section = s[1];
      else if (r) (sections[section] ??= []).push({ name: r[1], ms: Number(r[2]), percent: Number(r[3]) });
      else if (t) threads = Number(t[1]);
    }
    return { name: m[1], totalMs: Number(m[2]), runs: Number(m[4]), perRunMs: Number(m[5]),
      threads, sections };
  });
}

/** The report of module `m` (an Emscripten module of a profiled package), or null without. */
export function readProfile(m, heapOf, reset = false) {
  if (typeof m?._webhal_profiler_report_text !== 'function') return null;
  const size = 1 << 16;
  const at = m._malloc(size);
  try {
    const n = m._webhal_profiler_report_text(at, size);
    // A copy (slice) first: TextDecoder refuses views of shared memory (threads variant).
    const text = new TextDecoder().decode(heapOf(m).slice(at, at + n));
    if (reset) m._halide_profiler_reset();
    return { text, pipelines: parseProfile(text) };
  } finally {
    m._free(at);
  }
}

/**
 * Draw a profile (readProfile's) into `element`: per pipeline, a bar per Func (per kernel and
 * copy where the report has them), its length the share of the run.
 */
export function drawProfile(element, profile) {
  const doc = element.ownerDocument;
  element.replaceChildren();
  for (const p of profile?.pipelines ?? []) {
    const title = doc.createElement('div');
    title.textContent = `${p.name}: ${p.perRunMs.toFixed(3)} ms per run (${p.runs} runs)`;
    element.append(title);
    for (const [section, rows] of Object.entries(p.sections)) {
      for (const row of rows) {
        const line = doc.createElement('div');
        line.className = 'profile-row';
        line.title = section;
        const label = doc.createElement('span');
        label.textContent = `${row.name} ${row.ms.toFixed(3)} ms (${row.percent.toFixed(1)}%)`;
        label.style.cssText = 'display:inline-block;width:22em;font:12px monospace';
        const bar = doc.createElement('span');
        bar.style.cssText = `display:inline-block;height:0.8em;background:${section === 'funcs' ? '#4a7' : '#47a'};`
          + `width:${Math.min(100, row.percent) * 3}px`;
        line.append(label, bar);
        element.append(line);
      }
    }
  }
}
