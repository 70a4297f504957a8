import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { admissionEstimate, completionAllowance, estimatePromptTokens, textTokens } from './stream-admission.js';

describe('admission estimate', () => {
  it('counts a quarter token per character, by code point', () => {
    assert.equal(textTokens(''), 0);
    assert.equal(textTokens('abcd'), 1);
    assert.equal(textTokens('abcde'), 2);
    assert.equal(textTokens('😀😀😀😀'), 1);
  });

  it('counts chat messages with their overhead, text parts included', () => {
    const body = { messages: [{ role: 'system', content: 'abcdefgh' }, { role: 'user', content: [{ type: 'text', text: 'abcd' }, { type: 'image_url', image_url: { url: 'x' } }] }] };
    assert.equal(estimatePromptTokens(body, 'chat'), 3 + (4 + 2) + (4 + 1));
    assert.equal(estimatePromptTokens({}, 'chat'), 3);
  });

  it('counts completion prompts and embedding inputs given as text, lists of text, or token ids', () => {
    assert.equal(estimatePromptTokens({ prompt: 'abcdefgh' }, 'completion'), 2);
    assert.equal(estimatePromptTokens({ prompt: ['abcd', 'abcd'] }, 'completion'), 2);
    assert.equal(estimatePromptTokens({ input: [[1, 2, 3], [4]] }, 'embedding'), 4);
    assert.equal(estimatePromptTokens({ input: null }, 'embedding'), 0);
  });

  it('assumes max_completion_tokens, else max_tokens, else the default, times n; embeddings none', () => {
    assert.equal(completionAllowance({ max_tokens: 50, max_completion_tokens: 20 }, 'chat'), 20);
    assert.equal(completionAllowance({ max_tokens: 50, n: 3 }, 'completion'), 150);
    assert.equal(completionAllowance({}, 'chat'), 256);
    assert.equal(completionAllowance({}, 'chat', { defaultCompletionTokens: 16 }), 16);
    assert.equal(completionAllowance({ max_tokens: 50 }, 'embedding'), 0);
    assert.deepEqual(admissionEstimate({ prompt: 'abcd', max_tokens: 9 }, 'completion'), { promptTokens: 1, completionTokens: 9, totalTokens: 10 });
  });
});
