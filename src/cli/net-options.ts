// The TLS and wire-compression options of secantusd, spelled as mongod's: flags
// (--tlsMode, --tlsCertificateKeyFile, ..., --networkMessageCompressors), SECANTUS_TLS_* /
// SECANTUS_NETWORK_MESSAGE_COMPRESSORS variables, and the TOML tables [net.tls] and
// [net.compression] with the keys of mongod's YAML (net.tls.mode, net.tls.CAFile,
// net.compression.compressors, ...). options.ts merges them with the other sources.

import { isTlsMode, tlsModes } from '../server/tls.js';
import type { TlsMode, TlsOptions } from '../server/tls.js';

export interface NetOptions {
  tlsMode: TlsMode;
  tlsCertificateKeyFile: string | undefined;
  tlsCertificateKeyFilePassword: string | undefined;
  tlsCAFile: string | undefined;
  tlsAllowConnectionsWithoutCertificates: boolean;
  tlsAllowInvalidCertificates: boolean;
  tlsAllowInvalidHostnames: boolean;
  /** "disabled" or names separated by commas; undefined: mongod's default (snappy,zstd,zlib). */
  networkMessageCompressors: string | undefined;
}

export const netDefaults: NetOptions = {
  tlsMode: 'disabled',
  tlsCertificateKeyFile: undefined,
  tlsCertificateKeyFilePassword: undefined,
  tlsCAFile: undefined,
  tlsAllowConnectionsWithoutCertificates: false,
  tlsAllowInvalidCertificates: false,
  tlsAllowInvalidHostnames: false,
  networkMessageCompressors: undefined,
};

export const netUsage = `  --tlsMode <mode>          disabled (default), allowTLS, preferTLS or requireTLS
  --tlsCertificateKeyFile <file>
                            PEM with the server's certificate and private key
  --tlsCertificateKeyFilePassword <pw>
                            passphrase of an encrypted private key
  --tlsCAFile <file>        PEM of the CA that client certificates must chain to (required
                            with TLS, as in mongod 7.0)
  --tlsAllowConnectionsWithoutCertificates
                            let clients connect without a certificate
  --tlsAllowInvalidCertificates
                            accept client certificates that fail verification (logged)
  --tlsAllowInvalidHostnames
                            accepted for mongod compatibility (the server checks no hostnames)
  --networkMessageCompressors <list>
                            snappy,zstd,zlib (default: those installed) or disabled`;

export const netEnvUsage = `SECANTUS_TLS_MODE, SECANTUS_TLS_CERTIFICATE_KEY_FILE, SECANTUS_TLS_CERTIFICATE_KEY_FILE_PASSWORD,
SECANTUS_TLS_CA_FILE, SECANTUS_TLS_ALLOW_CONNECTIONS_WITHOUT_CERTIFICATES,
SECANTUS_TLS_ALLOW_INVALID_CERTIFICATES, SECANTUS_TLS_ALLOW_INVALID_HOSTNAMES,
SECANTUS_NETWORK_MESSAGE_COMPRESSORS`;

/** For node:util parseArgs. */
export const netFlagSpecs = {
  tlsMode: { type: 'string' },
  tlsCertificateKeyFile: { type: 'string' },
  tlsCertificateKeyFilePassword: { type: 'string' },
  tlsCAFile: { type: 'string' },
  tlsAllowConnectionsWithoutCertificates: { type: 'boolean' },
  tlsAllowInvalidCertificates: { type: 'boolean' },
  tlsAllowInvalidHostnames: { type: 'boolean' },
  networkMessageCompressors: { type: 'string' },
} as const;

/** Flags whose value is a secret: getCmdLineOpts and logs show "<password>". */
export const secretFlags = ['--tlsCertificateKeyFilePassword'];

type Fail = (message: string) => never;

function tlsMode(v: unknown, source: string, fail: Fail): TlsMode {
  if (isTlsMode(v)) return v;
  return fail(
    `${source}: unsupported value for tlsMode ${String(v)} (one of ${tlsModes.join(', ')})`,
  );
}

function compressorList(v: unknown, source: string, fail: Fail): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(',');
  return fail(`${source} must be a string such as "snappy,zstd,zlib" or "disabled"`);
}

export function fromNetFlags(
  v: { [K in keyof typeof netFlagSpecs]?: string | boolean },
  fail: Fail,
): Partial<NetOptions> {
  const out: Partial<NetOptions> = {};
  const str = (x: string | boolean | undefined): string | undefined =>
    typeof x === 'string' ? x : undefined;
  if (v.tlsMode !== undefined) out.tlsMode = tlsMode(v.tlsMode, '--tlsMode', fail);
  const keyFile = str(v.tlsCertificateKeyFile);
  if (keyFile !== undefined) out.tlsCertificateKeyFile = keyFile;
  const password = str(v.tlsCertificateKeyFilePassword);
  if (password !== undefined) out.tlsCertificateKeyFilePassword = password;
  const ca = str(v.tlsCAFile);
  if (ca !== undefined) out.tlsCAFile = ca;
  if (v.tlsAllowConnectionsWithoutCertificates === true)
    out.tlsAllowConnectionsWithoutCertificates = true;
  if (v.tlsAllowInvalidCertificates === true) out.tlsAllowInvalidCertificates = true;
  if (v.tlsAllowInvalidHostnames === true) out.tlsAllowInvalidHostnames = true;
  const compressors = str(v.networkMessageCompressors);
  if (compressors !== undefined) out.networkMessageCompressors = compressors;
  return out;
}

export function fromNetEnvironment(
  get: (name: string) => string | undefined,
  parseBool: (v: unknown, source: string) => boolean,
  fail: Fail,
): Partial<NetOptions> {
  const out: Partial<NetOptions> = {};
  const mode = get('SECANTUS_TLS_MODE');
  if (mode !== undefined) out.tlsMode = tlsMode(mode, 'SECANTUS_TLS_MODE', fail);
  const keyFile = get('SECANTUS_TLS_CERTIFICATE_KEY_FILE');
  if (keyFile !== undefined) out.tlsCertificateKeyFile = keyFile;
  const password = get('SECANTUS_TLS_CERTIFICATE_KEY_FILE_PASSWORD');
  if (password !== undefined) out.tlsCertificateKeyFilePassword = password;
  const ca = get('SECANTUS_TLS_CA_FILE');
  if (ca !== undefined) out.tlsCAFile = ca;
  const bools = [
    [
      'SECANTUS_TLS_ALLOW_CONNECTIONS_WITHOUT_CERTIFICATES',
      'tlsAllowConnectionsWithoutCertificates',
    ],
    ['SECANTUS_TLS_ALLOW_INVALID_CERTIFICATES', 'tlsAllowInvalidCertificates'],
    ['SECANTUS_TLS_ALLOW_INVALID_HOSTNAMES', 'tlsAllowInvalidHostnames'],
  ] as const;
  for (const [name, field] of bools) {
    const x = get(name);
    if (x !== undefined) out[field] = parseBool(x, name);
  }
  const compressors = get('SECANTUS_NETWORK_MESSAGE_COMPRESSORS');
  if (compressors !== undefined) out.networkMessageCompressors = compressors;
  return out;
}

const tlsTableKeys: Record<string, keyof NetOptions> = {
  mode: 'tlsMode',
  certificateKeyFile: 'tlsCertificateKeyFile',
  certificateKeyFilePassword: 'tlsCertificateKeyFilePassword',
  CAFile: 'tlsCAFile',
  allowConnectionsWithoutCertificates: 'tlsAllowConnectionsWithoutCertificates',
  allowInvalidCertificates: 'tlsAllowInvalidCertificates',
  allowInvalidHostnames: 'tlsAllowInvalidHostnames',
};

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `net` table of the config file: `[net.tls]` and `[net.compression]`, mongod's YAML keys. */
export function fromNetTable(
  net: unknown,
  src: string,
  parseBool: (v: unknown, source: string) => boolean,
  fail: Fail,
): Partial<NetOptions> {
  if (!isTable(net)) return fail(`${src} must be a table`);
  const out: Partial<NetOptions> = {};
  for (const [k, v] of Object.entries(net)) {
    if (k === 'tls') {
      if (!isTable(v)) return fail(`${src}.tls must be a table`);
      for (const [tk, tv] of Object.entries(v)) {
        const field = tlsTableKeys[tk];
        const at = `${src}.tls.${tk}`;
        if (field === undefined) return fail(`${src}.tls: unknown key '${tk}'`);
        if (field === 'tlsMode') out.tlsMode = tlsMode(tv, at, fail);
        else if (
          field === 'tlsAllowConnectionsWithoutCertificates' ||
          field === 'tlsAllowInvalidCertificates' ||
          field === 'tlsAllowInvalidHostnames'
        )
          out[field] = parseBool(tv, at);
        else if (
          field === 'tlsCertificateKeyFile' ||
          field === 'tlsCertificateKeyFilePassword' ||
          field === 'tlsCAFile'
        ) {
          if (typeof tv !== 'string') return fail(`${at} must be a string`);
          out[field] = tv;
        }
      }
    } else if (k === 'compression') {
      if (!isTable(v)) return fail(`${src}.compression must be a table`);
      for (const [ck, cv] of Object.entries(v)) {
        if (ck !== 'compressors') return fail(`${src}.compression: unknown key '${ck}'`);
        out.networkMessageCompressors = compressorList(cv, `${src}.compression.compressors`, fail);
      }
    } else {
      return fail(`${src}: unknown key '${k}'`);
    }
  }
  return out;
}

/** The server's TLS settings from the resolved options. */
export function tlsOptionsOf(o: NetOptions): TlsOptions {
  return {
    mode: o.tlsMode,
    ...(o.tlsCertificateKeyFile === undefined
      ? {}
      : { certificateKeyFile: o.tlsCertificateKeyFile }),
    ...(o.tlsCertificateKeyFilePassword === undefined
      ? {}
      : { certificateKeyFilePassword: o.tlsCertificateKeyFilePassword }),
    ...(o.tlsCAFile === undefined ? {} : { CAFile: o.tlsCAFile }),
    allowConnectionsWithoutCertificates: o.tlsAllowConnectionsWithoutCertificates,
    allowInvalidCertificates: o.tlsAllowInvalidCertificates,
    allowInvalidHostnames: o.tlsAllowInvalidHostnames,
  };
}

/** getCmdLineOpts' `net` additions; the key passphrase shows as "<password>", as in mongod. */
export function netParsedDocument(o: NetOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (o.tlsMode !== 'disabled') {
    const t: Record<string, unknown> = { mode: o.tlsMode };
    if (o.tlsCertificateKeyFile !== undefined) t['certificateKeyFile'] = o.tlsCertificateKeyFile;
    if (o.tlsCertificateKeyFilePassword !== undefined)
      t['certificateKeyFilePassword'] = '<password>';
    if (o.tlsCAFile !== undefined) t['CAFile'] = o.tlsCAFile;
    if (o.tlsAllowConnectionsWithoutCertificates) t['allowConnectionsWithoutCertificates'] = true;
    if (o.tlsAllowInvalidCertificates) t['allowInvalidCertificates'] = true;
    if (o.tlsAllowInvalidHostnames) t['allowInvalidHostnames'] = true;
    out['tls'] = t;
  }
  if (o.networkMessageCompressors !== undefined)
    out['compression'] = { compressors: o.networkMessageCompressors };
  return out;
}

/** The command line with secret values replaced by "<password>" (getCmdLineOpts.argv). */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const eq = a.indexOf('=');
    const flag = eq < 0 ? a : a.slice(0, eq);
    if (!secretFlags.includes(flag)) {
      out.push(a);
    } else if (eq >= 0) {
      out.push(`${flag}=<password>`);
    } else {
      out.push(a);
      if (i + 1 < argv.length) {
        out.push('<password>');
        i++;
      }
    }
  }
  return out;
}
