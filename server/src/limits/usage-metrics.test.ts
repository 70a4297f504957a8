import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { describe, it } from 'vitest';
import { UsageMetrics } from './usage-metrics.js';

describe('usage metrics', () => {
  it('counts tokens by model and by key id, prompt and completion apart, and refusals by code', async () => {
    const registry = new Registry();
    const metrics = new UsageMetrics(registry);
    metrics.recordTokens('llama-3', 'k1', 10, 5);
    metrics.recordTokens('llama-3', null, 1, 2);
    metrics.recordLimited('budget_exceeded');
    const text = await registry.metrics();
    assert.match(text, /^svc_model_tokens_total\{model="llama-3",kind="prompt"\} 11$/m);
    assert.match(text, /^svc_model_tokens_total\{model="llama-3",kind="completion"\} 7$/m);
    assert.match(text, /^svc_key_tokens_total\{key_id="k1",kind="prompt"\} 10$/m);
    assert.match(text, /^svc_key_tokens_total\{key_id="none",kind="completion"\} 2$/m);
    assert.match(text, /^svc_usage_limited_total\{code="budget_exceeded"\} 1$/m);
    assert.match(text, /^svc_usage_limited_total\{code="rate_limit_exceeded"\} 0$/m);
  });
});
