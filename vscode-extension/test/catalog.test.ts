import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problemPicks } from '../src/catalog';

describe('catalogue quick pick', () => {
  it('shows title, slug, and the facts that help choose', () => {
    assert.deepEqual(
      problemPicks([
        { slug: 'adam-optimizer-memory-bytes', title: 'Adam optimizer memory', difficulty: 'easy', category: 'memory', tags: ['adam', 'optimizer'], hasBenchmark: false },
        { slug: 'quantized-adamw-8bit', title: '8-bit AdamW', difficulty: 'hard', category: 'kernels', tags: [], hasBenchmark: true },
      ]),
      [
        { label: 'Adam optimizer memory', description: 'adam-optimizer-memory-bytes', detail: 'easy · memory · adam, optimizer', slug: 'adam-optimizer-memory-bytes' },
        { label: '$(dashboard) 8-bit AdamW', description: 'quantized-adamw-8bit', detail: 'hard · kernels · CUDA benchmark', slug: 'quantized-adamw-8bit' },
      ],
    );
  });
});
