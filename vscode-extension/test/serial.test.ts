import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Serial } from '../src/serial';

/** A job whose runs the test finishes one by one. */
function gatedJob() {
  const gates: Array<() => void> = [];
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  const job = async () => {
    runs += 1;
    active += 1;
    maxActive = Math.max(maxActive, active);
    await new Promise<void>((resolve) => gates.push(resolve));
    active -= 1;
  };
  const finishNext = async () => {
    while (gates.length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    gates.shift()!();
  };
  return { job, finishNext, stats: () => ({ runs, maxActive }) };
}

describe('serialized restarts', () => {
  it('runs one job at a time and folds a burst of requests into one rerun', async () => {
    const { job, finishNext, stats } = gatedJob();
    const serial = new Serial(job);
    const first = serial.request();
    const burst = [serial.request(), serial.request(), serial.request()];
    assert.equal(burst[0], burst[2], 'requests during a run share the rerun');
    await finishNext();
    await first;
    await finishNext();
    await Promise.all(burst);
    assert.deepEqual(stats(), { runs: 2, maxActive: 1 });
  });

  it('starts afresh after going idle', async () => {
    const { job, finishNext, stats } = gatedJob();
    const serial = new Serial(job);
    const a = serial.request();
    await finishNext();
    await a;
    const b = serial.request();
    await finishNext();
    await b;
    assert.deepEqual(stats(), { runs: 2, maxActive: 1 });
  });

  it('reruns after a failed run and reports the failure to its caller', async () => {
    let calls = 0;
    const serial = new Serial(async () => {
      calls += 1;
      await new Promise((resolve) => setImmediate(resolve));
      if (calls === 1) {
        throw new Error('no python');
      }
    });
    const failing = serial.request();
    const rerun = serial.request();
    await assert.rejects(failing, /no python/);
    await rerun;
    assert.equal(calls, 2);
  });
});
