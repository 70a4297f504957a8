import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { answerUsage, reportedUsage, StreamUsage } from './call-usage.js';

describe('call usage', () => {
  it('reads the usage an answer reports, completing a missing completion count from the total', () => {
    assert.deepEqual(reportedUsage({ usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }), { promptTokens: 10, completionTokens: 5 });
    assert.deepEqual(reportedUsage({ usage: { prompt_tokens: 7, total_tokens: 7 } }), { promptTokens: 7, completionTokens: 0 });
    assert.equal(reportedUsage({ usage: null }), null);
    assert.equal(reportedUsage({ usage: { prompt_tokens: -1 } }), null);
    assert.equal(reportedUsage('text'), null);
  });

  it('estimates an answer without usage from its text, marked estimated', () => {
    assert.deepEqual(answerUsage({ choices: [{ message: { content: 'abcdefgh' } }] }, 12), { promptTokens: 12, completionTokens: 2, estimated: true });
    assert.deepEqual(answerUsage({ choices: [{ text: 'abcd' }], usage: { prompt_tokens: 3, completion_tokens: 1 } }, 12), { promptTokens: 3, completionTokens: 1, estimated: false });
  });

  it('takes a stream’s reported usage, else estimates from the deltas streamed (a cut-off stream included)', () => {
    const reported = new StreamUsage(5);
    reported.add({ choices: [{ delta: { content: 'Hello' } }] });
    reported.add({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 } });
    assert.deepEqual(reported.result(), { promptTokens: 9, completionTokens: 1, estimated: false });
    const silent = new StreamUsage(5);
    for (const word of ['Once ', 'upon ', 'a ', 'time']) silent.add({ choices: [{ delta: { content: word } }] });
    assert.deepEqual(silent.result(), { promptTokens: 5, completionTokens: 4, estimated: true });
    assert.deepEqual(new StreamUsage(5).result(), { promptTokens: 5, completionTokens: 0, estimated: true });
  });
});
