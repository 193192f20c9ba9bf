// A net-test result for the heatmap tests (the standalone page's and the custom editor's in code-server).
import type { NetTestFile } from '../../../server/src/perf/net-test-file';

/**
 * 8 ranks on two hosts placed round-robin (rank r on host r % 2), so that only ordering by host makes the
 * blocks contiguous. Delays: 5 µs within a host, 50 µs across, times (1 + length / 1024); rank 7's row a
 * little slower so that a zoom has something to tell apart.
 */
export function fixture(scale = 1): NetTestFile {
  const n = 8;
  const hosts = Array.from({ length: n }, (_, r) => (r % 2 === 0 ? 'alpha' : 'beta'));
  const lengths = [0, 1024];
  const matrix = (len: number, f: number): (number | null)[][] =>
    Array.from({ length: n }, (_, i) =>
      Array.from({ length: n }, (_, j) =>
        i === j
          ? null
          : ((hosts[i] === hosts[j] ? 5e-6 : 50e-6) + (i === 6 ? 1e-6 : 0)) * (1 + len / 1024) * f * scale,
      ),
    );
  return {
    format: 'mpiscope-net-test',
    version: 1,
    mode: 'one_to_one',
    started: '2026-01-01T00:00:00.000Z',
    mpi: { flavor: 'openmpi', launcher: 'mpirun' },
    parameters: { begin: 0, end: 1024, step: 1024, repetitions: 10 },
    hosts,
    unit: 'seconds',
    results: lengths.map((length) => ({
      length,
      min: matrix(length, 0.9),
      median: matrix(length, 1),
      mean: matrix(length, 1.05),
      stddev: matrix(length, 0.1),
    })),
  };
}
