// The MongoDB version this server presents itself as (hello's maxWireVersion, buildInfo,
// serverStatus, explain's serverInfo, featureCompatibilityVersion), and the behaviour that
// depends on it. One place knows the version: behaviour that changed between releases asks
// here (e.g. `sort` in update statements, new in 8.0), keyed on the wire version.

export interface ReportedVersion {
  /** hello's maxWireVersion. */
  readonly maxWireVersion: number;
  /** buildInfo.version, serverStatus.version. */
  readonly version: string;
  readonly versionArray: readonly number[];
  /** getParameter featureCompatibilityVersion. */
  readonly featureCompatibilityVersion: string;
}

export const reportedVersions = {
  '7.0': {
    maxWireVersion: 21,
    version: '7.0.14',
    versionArray: [7, 0, 14, 0],
    featureCompatibilityVersion: '7.0',
  },
  '8.0': {
    maxWireVersion: 25,
    version: '8.0.4',
    versionArray: [8, 0, 4, 0],
    featureCompatibilityVersion: '8.0',
  },
} as const satisfies Record<string, ReportedVersion>;

export type CompatibilityVersion = keyof typeof reportedVersions;

/**
 * What the server reports unless told otherwise (ServerOptions.compatibilityVersion): 8.0,
 * since its command-level behaviour (bulkWrite, sort in update statements) is built.
 */
export const defaultCompatibilityVersion: CompatibilityVersion = '8.0';

export function isCompatibilityVersion(v: string): v is CompatibilityVersion {
  return Object.hasOwn(reportedVersions, v);
}

/** The wire version from which a behaviour is on (mongod's release that brought it). */
const wireVersionOf = {
  /** `sort` in update statements (update, bulkWrite): 8.0. */
  updateSort: 25,
  /** readConcern snapshot on a (replicated) capped collection: 8.0 (7.0 refuses it). */
  snapshotReadsOnCapped: 25,
  /**
   * Without Atlas Search, search stages and search index commands answer SearchNotEnabled
   * (31082): 8.0 (7.0 answers 6047401 / CommandNotSupported 115).
   */
  searchNotEnabled: 25,
} as const;

export function supports(v: ReportedVersion, feature: keyof typeof wireVersionOf): boolean {
  return v.maxWireVersion >= wireVersionOf[feature];
}
