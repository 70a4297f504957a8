/**
 * Reads a key's `expires_at` as the contract's `KeyExpiry` allows it: an ISO 8601 time with a UTC
 * offset, a time without one, or a bare date. Times without an offset are UTC (the reference web UI
 * sends its local end of day without a zone; reading it as the server's local time would make the
 * expiry depend on where the server runs).
 */
import { ApiError } from '../errors.js';

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})?)?$/;

/**
 * The epoch milliseconds of `text`, or 400 `invalid_request` naming `expires_at` when it is not a
 * real date and time (`2026-02-30`, `24:00`).
 *
 * @example
 * parseKeyExpiry('2027-01-01') === Date.UTC(2027, 0, 1);
 * parseKeyExpiry('2027-01-01T23:59:59') === Date.UTC(2027, 0, 1, 23, 59, 59);
 */
export function parseKeyExpiry(text: string): number {
  const match = SHAPE.exec(text);
  if (match === null) throw invalid(text);
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', offset = 'Z'] = match;
  const fields = [Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second)] as const;
  const utc = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5]);
  const check = new Date(utc);
  const real =
    check.getUTCFullYear() === fields[0] &&
    check.getUTCMonth() === fields[1] - 1 &&
    check.getUTCDate() === fields[2] &&
    check.getUTCHours() === fields[3] &&
    check.getUTCMinutes() === fields[4] &&
    check.getUTCSeconds() === fields[5];
  if (!real) throw invalid(text);
  const milliseconds = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  const time = utc + milliseconds - offsetMinutes(offset) * 60_000;
  if (Number.isNaN(time)) throw invalid(text);
  return time;
}

function offsetMinutes(offset: string): number {
  if (offset === 'Z' || offset === 'z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const hours = Number(offset.slice(1, 3));
  const minutes = Number(offset.slice(4, 6));
  if (hours > 23 || minutes > 59) return Number.NaN;
  return sign * (hours * 60 + minutes);
}

function invalid(text: string): ApiError {
  return new ApiError('invalid_request', `expires_at is not a valid date or time: ${JSON.stringify(text).slice(0, 60)}`, { param: 'expires_at' });
}
