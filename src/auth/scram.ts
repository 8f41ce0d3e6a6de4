// SCRAM-SHA-1 and SCRAM-SHA-256 (RFC 5802, RFC 7677) as mongod speaks them: the stored
// credential (salt, iteration count, StoredKey, ServerKey — never the password) and the server
// side of the conversation. SCRAM-SHA-1 hashes mongod's legacy digest, hex(MD5("user:mongo:pwd")),
// where SCRAM-SHA-256 hashes the SASLprep'd password.
//
// A client naming an unknown user (or a user without credentials for the mechanism) gets a
// server-first message like any other, with a salt derived from the name, and fails at the
// proof exactly like a wrong password: the replies and the work done do not tell the two apart.

import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import saslprep from '@mongodb-js/saslprep';
import { limits } from '../limits.js';

export const scramMechanisms = ['SCRAM-SHA-1', 'SCRAM-SHA-256'] as const;
export type ScramMechanism = (typeof scramMechanisms)[number];

export function isScramMechanism(m: string): m is ScramMechanism {
  return m === 'SCRAM-SHA-1' || m === 'SCRAM-SHA-256';
}

interface Hash {
  readonly name: 'sha1' | 'sha256';
  readonly bytes: number;
}

function hashOf(mechanism: ScramMechanism): Hash {
  return mechanism === 'SCRAM-SHA-1' ? { name: 'sha1', bytes: 20 } : { name: 'sha256', bytes: 32 };
}

export interface ScramCredential {
  readonly iterationCount: number;
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

/** mongod's createPasswordDigest: what SCRAM-SHA-1 uses as the password. */
export function legacyPasswordDigest(user: string, password: string): string {
  return createHash('md5').update(`${user}:mongo:${password}`).digest('hex');
}

/** The password SCRAM-SHA-256 hashes: SASLprep'd (RFC 4013), as drivers send it. */
export function preparePassword(password: string): string {
  return saslprep(password);
}

function pbkdf2Async(
  secret: string,
  salt: Buffer,
  iterations: number,
  hash: Hash,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    pbkdf2(secret, salt, iterations, hash.bytes, hash.name, (e, key) =>
      e === null ? resolve(key) : reject(e),
    ),
  );
}

function hmac(hash: Hash, key: Buffer, data: string): Buffer {
  return createHmac(hash.name, key).update(data).digest();
}

/**
 * A new credential for `user` / `password`: a random salt (hash length − 4 bytes, as mongod) and
 * the keys derived from it. The salting runs off the event loop.
 */
export async function makeCredential(
  mechanism: ScramMechanism,
  user: string,
  password: string,
  iterationCount: number,
  /** false: `password` is already mongod's SCRAM-SHA-1 digest (createUser digestPassword: false). */
  digestPassword = true,
  /** The salt; random (hash length − 4 bytes) unless given (tests use the RFC vectors' salts). */
  salt: Buffer = randomBytes(hashOf(mechanism).bytes - 4),
): Promise<ScramCredential> {
  const hash = hashOf(mechanism);
  const secret =
    mechanism === 'SCRAM-SHA-1'
      ? digestPassword
        ? legacyPasswordDigest(user, password)
        : password
      : preparePassword(password);
  const salted = await pbkdf2Async(secret, salt, iterationCount, hash);
  const clientKey = hmac(hash, salted, 'Client Key');
  return {
    iterationCount,
    salt,
    storedKey: createHash(hash.name).update(clientKey).digest(),
    serverKey: hmac(hash, salted, 'Server Key'),
  };
}

/** A step the client got wrong; the command answers AuthenticationFailed whatever the reason. */
export class ScramError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ScramError';
  }
}

/** RFC 5802 saslname: "=2C" is ",", "=3D" is "="; any other "=" is malformed. */
function decodeSaslName(s: string): string {
  if (/=(?!2C|3D)/.test(s)) throw new ScramError('invalid escape in SCRAM user name');
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

/** Attribute "k=value" at the start of `part`, or a ScramError. */
function attribute(part: string | undefined, key: string): string {
  if (part === undefined || !part.startsWith(`${key}=`))
    throw new ScramError(`expected SCRAM attribute '${key}'`);
  return part.slice(key.length + 1);
}

// Printable ASCII except ',' (RFC 5802 "printable").
const nonceChars = /^[\x21-\x2b\x2d-\x7e]+$/;

/** Salt for a name that has no credential: stable per name, unpredictable without the secret. */
const fakeSaltSecret = randomBytes(32);

export type CredentialLookup = (user: string) => ScramCredential | undefined;

type State =
  | { readonly step: 'start' }
  | {
      readonly step: 'sentFirst';
      readonly user: string;
      readonly credential: ScramCredential | undefined;
      readonly gs2Header: string;
      readonly nonce: string;
      readonly authMessagePrefix: string;
    }
  | { readonly step: 'sentFinal'; readonly user: string }
  | { readonly step: 'done'; readonly user: string }
  | { readonly step: 'failed' };

/** The server side of one SCRAM conversation. */
export class ScramServer {
  private state: State = { step: 'start' };
  private readonly hash: Hash;

  constructor(
    readonly mechanism: ScramMechanism,
    private readonly defaultIterations: number,
    /**
     * Fail at the first message for a user without a credential (hello's speculative
     * authentication, where mongod does so and drivers then negotiate the mechanism).
     */
    private readonly failUnknownEarly = false,
  ) {
    this.hash = hashOf(mechanism);
  }

  /** The user the client named (once the first message was read). */
  get user(): string | undefined {
    return this.state.step === 'sentFirst' ||
      this.state.step === 'sentFinal' ||
      this.state.step === 'done'
      ? this.state.user
      : undefined;
  }

  /** True once the client proved it holds the password. */
  get authenticated(): boolean {
    return this.state.step === 'sentFinal' || this.state.step === 'done';
  }

  get done(): boolean {
    return this.state.step === 'done';
  }

  /** One step: the client's message in, the server's out. Throws ScramError on any fault. */
  step(payload: Buffer, lookup: CredentialLookup): Buffer {
    try {
      if (payload.length > limits.saslPayloadBytesMax)
        throw new ScramError(`SASL payload of ${payload.length} bytes is too large`);
      switch (this.state.step) {
        case 'start':
          return this.first(payload.toString('utf8'), lookup);
        case 'sentFirst':
          return this.final(payload.toString('utf8'));
        case 'sentFinal':
          // The empty exchange of clients that do not ask to skip it.
          this.state = { step: 'done', user: this.state.user };
          return Buffer.alloc(0);
        default:
          throw new ScramError('SCRAM conversation is already complete');
      }
    } catch (e) {
      this.state = { step: 'failed' };
      throw e;
    }
  }

  /** skipEmptyExchange: the conversation ends with the server-final message. */
  finishEarly(): void {
    if (this.state.step === 'sentFinal') this.state = { step: 'done', user: this.state.user };
  }

  private first(message: string, lookup: CredentialLookup): Buffer {
    const parts = message.split(',');
    if (parts.length < 4)
      throw new ScramError(
        `Incorrect number of arguments for first SCRAM client message, got ${parts.length} expected at least 4`,
      );
    const [cbind, authzid, userPart, noncePart, ...extensions] = parts;
    if (cbind === 'p' || cbind?.startsWith('p=') === true)
      throw new ScramError('Server does not support channel binding');
    if (cbind !== 'n' && cbind !== 'y')
      throw new ScramError(`Incorrect SCRAM client message prefix: ${cbind ?? ''}`);
    const user = decodeSaslName(attribute(userPart, 'n'));
    if (authzid !== '' && authzid !== `a=${userPart?.slice(2) ?? ''}`)
      throw new ScramError('SCRAM authorization identity must match the user name');
    if (user === '' || Buffer.byteLength(user) > limits.userNameBytesMax)
      throw new ScramError('SCRAM user name is empty or too long');
    if (extensions.some((e) => e.startsWith('m=')))
      throw new ScramError('SCRAM mandatory extensions are not supported');
    if (extensions.some((e) => !/^[a-zA-Z]=/.test(e)))
      throw new ScramError('malformed SCRAM extension in the first client message');
    const clientNonce = attribute(noncePart, 'r');
    if (!nonceChars.test(clientNonce) || clientNonce.length > limits.scramNonceLengthMax)
      throw new ScramError('Invalid SCRAM client nonce');
    const credential = lookup(user);
    if (credential === undefined && this.failUnknownEarly)
      throw new ScramError('no SCRAM credential for this user and mechanism');
    const salt =
      credential?.salt ??
      createHmac('sha256', fakeSaltSecret)
        .update(`${this.mechanism}\0${user}`)
        .digest()
        .subarray(0, this.hash.bytes - 4);
    const iterations = credential?.iterationCount ?? this.defaultIterations;
    const nonce = clientNonce + randomBytes(24).toString('base64');
    const serverFirst = `r=${nonce},s=${salt.toString('base64')},i=${iterations}`;
    const clientFirstBare = [userPart, noncePart, ...extensions].join(',');
    this.state = {
      step: 'sentFirst',
      user,
      credential,
      gs2Header: `${cbind},${authzid},`,
      nonce,
      authMessagePrefix: `${clientFirstBare},${serverFirst}`,
    };
    return Buffer.from(serverFirst, 'utf8');
  }

  private final(message: string): Buffer {
    const state = this.state;
    if (state.step !== 'sentFirst') throw new ScramError('unexpected SCRAM message');
    const parts = message.split(',');
    if (parts.length < 3)
      throw new ScramError(
        `Incorrect number of arguments for final SCRAM client message, got ${parts.length} expected at least 3`,
      );
    const proofPart = parts[parts.length - 1];
    const channelBinding = attribute(parts[0], 'c');
    const nonce = attribute(parts[1], 'r');
    const proofText = attribute(proofPart, 'p');
    if (channelBinding !== Buffer.from(state.gs2Header, 'utf8').toString('base64'))
      throw new ScramError('SCRAM channel binding data does not match the first message');
    if (nonce !== state.nonce) throw new ScramError('Unmatched SCRAM nonce received from client');
    const proof = Buffer.from(proofText, 'base64');
    const withoutProof = parts.slice(0, -1).join(',');
    const authMessage = `${state.authMessagePrefix},${withoutProof}`;
    // The same work whether or not the user exists: a missing credential is checked against
    // keys derived from nothing, and fails like a wrong proof.
    const storedKey = state.credential?.storedKey ?? Buffer.alloc(this.hash.bytes);
    const clientSignature = hmac(this.hash, storedKey, authMessage);
    const proofOk = proof.length === this.hash.bytes;
    const clientKey = Buffer.alloc(this.hash.bytes);
    for (let i = 0; i < clientKey.length; i++)
      clientKey[i] = (proofOk ? (proof[i] ?? 0) : 0) ^ (clientSignature[i] ?? 0);
    const computed = createHash(this.hash.name).update(clientKey).digest();
    const matches = timingSafeEqual(computed, storedKey);
    if (!proofOk || !matches || state.credential === undefined)
      throw new ScramError('SCRAM authentication failed, storedKey mismatch');
    const serverSignature = hmac(this.hash, state.credential.serverKey, authMessage);
    this.state = { step: 'sentFinal', user: state.user };
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }
}
