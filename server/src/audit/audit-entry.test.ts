import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { csvField, csvHeader } from './audit-format.js';
import { auditFields, canonicalEncoding, chainHash, cleanText, entryFromEncoding, GENESIS_HASH, type AuditEntry } from './audit-entry.js';
import { eventEntry } from './audit-trail.js';
import { parseAuditTime, parseTimeRange } from './time-range.js';

describe('audit records', () => {
  it('spell out control characters so no field spans lines, and cut overlong text', () => {
    assert.equal(cleanText('eve\r\nadmin\tx\u0000'), 'eve\\u000d\\u000aadmin\\u0009x\\u0000');
    assert.equal(cleanText('line\u2028separator'), 'line\\u2028separator');
    assert.equal(cleanText(null), null);
    assert.equal(cleanText('a'.repeat(5000))?.length, 1025);
  });

  it('chain each hash to the previous one over a canonical encoding of every field', () => {
    const entry = eventEntry({ event_type: 'startup', action: 'server.start', status: 'success' }, 1_700_000_000_000);
    const first = chainHash(GENESIS_HASH, entry);
    assert.match(first, /^[0-9a-f]{64}$/);
    assert.equal(chainHash(GENESIS_HASH, { ...entry }), first, 'deterministic');
    assert.notEqual(chainHash(first, entry), first, 'covers the previous hash');
    assert.notEqual(chainHash(GENESIS_HASH, { ...entry, status: 'error' }), first, 'covers the fields');
    assert.equal(JSON.parse(canonicalEncoding(entry)).length, 24);
  });

  it('read every field back from a canonical encoding, each in its own place', () => {
    // A distinct value per field: a field read from another field's place shows.
    const entry = Object.fromEntries(auditFields.map((field, index) => [field, `${field}-${index}`])) as unknown as AuditEntry;
    assert.deepEqual(entryFromEncoding(canonicalEncoding(entry)), entry);
    assert.deepEqual(Object.keys(entryFromEncoding(canonicalEncoding(entry))), [...auditFields]);
  });

  it('encode every field at its place in the field list, a missing one as null', () => {
    // The encoding is spelled out field by field for speed; the hash depends on this exact order.
    const entry = Object.fromEntries(auditFields.map((field, index) => [field, `${field}-${index}`])) as unknown as AuditEntry;
    assert.equal(canonicalEncoding(entry), JSON.stringify(auditFields.map((field) => entry[field])));
    const withoutDetails: Partial<AuditEntry> = { ...entry };
    delete withoutDetails.details;
    assert.equal(canonicalEncoding(withoutDetails as AuditEntry), JSON.stringify([...auditFields.slice(0, -1).map((field) => entry[field]), null]));
  });
});

describe('audit CSV', () => {
  it('neutralises spreadsheet formulas, quotes what needs it and keeps every record on one line', () => {
    assert.equal(csvField('=SUM(A1)'), `"'=SUM(A1)"`);
    assert.equal(csvField('+1'), `"'+1"`);
    assert.equal(csvField('-1'), `"'-1"`);
    assert.equal(csvField('@cmd'), `"'@cmd"`);
    assert.equal(csvField(-1.5), '-1.5', 'numbers are numbers');
    assert.equal(csvField('a,"b"'), '"a,""b"""');
    assert.equal(csvField('x\r\ny'), 'x\\u000d\\u000ay');
    assert.equal(csvField(null), '');
    assert.equal(csvField({ a: 1 }), '"{""a"":1}"');
    assert.ok(csvHeader.startsWith('id,timestamp,event_type,'));
  });
});

describe('audit time ranges', () => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);
  it('read now, now-Nm/h/d/w, epoch milliseconds and ISO times', () => {
    assert.equal(parseAuditTime('now', 'time_from', now), now);
    assert.equal(parseAuditTime('now-15m', 'time_from', now), now - 15 * 60_000);
    assert.equal(parseAuditTime('now-1h', 'time_from', now), now - 3_600_000);
    assert.equal(parseAuditTime('now-2d', 'time_from', now), now - 2 * 86_400_000);
    assert.equal(parseAuditTime('now-1w', 'time_from', now), now - 604_800_000);
    assert.equal(parseAuditTime('1763726400000', 'time_from', now), 1_763_726_400_000);
    assert.equal(parseAuditTime('2026-11-21T10:00:00Z', 'time_from', now), Date.UTC(2026, 10, 21, 10));
    assert.deepEqual(parseTimeRange({}, now), { timeFrom: now - 3_600_000, timeTo: now });
  });

  it('refuse anything else, and a range that ends before it starts, naming the parameter', () => {
    for (const bad of ['yesterday', 'now-1y', 'now+1h', '2026-13-45', '']) {
      assert.throws(() => parseAuditTime(bad, 'time_to', now), (error: Error & { param?: string }) => error.param === 'time_to');
    }
    assert.throws(() => parseTimeRange({ time_from: 'now', time_to: 'now-1h' }, now), /must not be after/);
  });
});
