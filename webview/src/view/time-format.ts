/** "12.5 µs", "3.20 ms", "1.004 s": three significant digits, the unit chosen by magnitude. */
export function formatDuration(ns: number): string {
  const a = Math.abs(ns);
  if (a < 1e3) return `${trim(ns)} ns`;
  if (a < 1e6) return `${trim(ns / 1e3)} µs`;
  if (a < 1e9) return `${trim(ns / 1e6)} ms`;
  return `${trim(ns / 1e9)} s`;
}

function trim(v: number): string {
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

/** A tick step of 1, 2 or 5 × 10^k nanoseconds giving at least minPx pixels between ticks. */
export function tickStep(nsPerPixel: number, minPx = 90): number {
  const raw = nsPerPixel * minPx;
  const pow = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-3))));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

export function formatBytes(b: number): string {
  if (b < 1024) return `${b} B`;
  if (b < 1024 * 1024) return `${(b / 1024).toFixed(b < 10240 ? 1 : 0)} KiB`;
  if (b < 1024 ** 3) return `${(b / 1024 ** 2).toFixed(1)} MiB`;
  return `${(b / 1024 ** 3).toFixed(2)} GiB`;
}

/**
 * A tick label precise enough that neighbouring ticks differ: the unit follows the step's magnitude and
 * the decimals follow the step's first significant digit ("11.15 ms", "11.20 ms", not "11.1 ms" twice).
 */
export function formatTick(t: number, step: number): string {
  if (t === 0) return '0';
  const units: [number, string][] = [
    [1e9, 's'],
    [1e6, 'ms'],
    [1e3, 'µs'],
    [1, 'ns'],
  ];
  const [scale, unit] = units.find(([s]) => Math.abs(t) >= s && step >= s / 1000) ?? [1, 'ns'];
  const decimals = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / scale) - 1e-9)));
  return `${(t / scale).toFixed(decimals)} ${unit}`;
}
