/**
 * Encrypts API keys at rest for reveal: AES-256-GCM with a random 96-bit nonce per row, the row id
 * as associated data (a ciphertext moved to another row fails), and a leading format byte. The AES key
 * is derived from the configured encryption key with HKDF-SHA256; its fingerprint is stored with each
 * row so reveal can tell "encrypted under another key" from "damaged".
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 1;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;

/** Why a ciphertext could not be opened. */
export type DecryptFailure = 'other_key' | 'damaged';

/** Encrypts and decrypts key plaintexts with one configured encryption key. */
export class KeyEncryption {
  readonly #key: Buffer;
  /** A short fingerprint of the encryption key, stored beside each ciphertext. */
  readonly keyId: string;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'svc-api-key-encryption', 'aes-256-gcm v1', 32));
    this.keyId = createHmac('sha256', this.#key).update('svc key id').digest('hex').slice(0, 16);
  }

  /** Encrypts `plaintext`, bound to `rowId`. Two calls never give the same bytes. */
  encrypt(plaintext: string, rowId: string): Buffer {
    const nonce = randomBytes(NONCE_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(Buffer.from(rowId));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_VERSION]), nonce, body, cipher.getAuthTag()]);
  }

  /** Decrypts a stored ciphertext, or says why it cannot. */
  decrypt(blob: Buffer, rowId: string, storedKeyId: string): { plaintext: string } | { failure: DecryptFailure } {
    if (storedKeyId !== this.keyId) return { failure: 'other_key' };
    if (blob.length < 1 + NONCE_LENGTH + TAG_LENGTH || blob[0] !== FORMAT_VERSION) return { failure: 'damaged' };
    try {
      const nonce = blob.subarray(1, 1 + NONCE_LENGTH);
      const tag = blob.subarray(blob.length - TAG_LENGTH);
      const decipher = createDecipheriv('aes-256-gcm', this.#key, nonce);
      decipher.setAAD(Buffer.from(rowId));
      decipher.setAuthTag(tag);
      const body = blob.subarray(1 + NONCE_LENGTH, blob.length - TAG_LENGTH);
      return { plaintext: Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8') };
    } catch {
      return { failure: 'damaged' };
    }
  }
}
