import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benchmarkSummary } from '../src/benchmark';

describe('benchmark summary', () => {
  it('gives the geomean with the roofline fraction and the speed-up', () => {
    assert.equal(
      benchmarkSummary({ device: 'NVIDIA H200', unit: 'GB/s', correct: true, geomean_gbps: 812.04, fraction_of_roofline: 0.2031, speedup_vs_reference: 3.456 }),
      'kata benchmark on NVIDIA H200: geomean 812.0 GB/s, 20.3% of the copy roofline, 3.46x the eager reference',
    );
  });

  it('says why a wrong kernel has no figure', () => {
    assert.equal(
      benchmarkSummary({ device: 'NVIDIA H200', correct: false, gate_message: 'out[3]: expected 1, got 2' }),
      'kata benchmark on NVIDIA H200: rejected: out[3]: expected 1, got 2',
    );
  });

  it('says when there was nothing to time', () => {
    assert.equal(benchmarkSummary({ device: null, correct: true, gate_message: 'CUDA is not available', geomean_gbps: null }), 'kata benchmark: no figure (CUDA is not available)');
    assert.equal(benchmarkSummary({ cancelled: true }), 'kata benchmark: cancelled');
  });
});
