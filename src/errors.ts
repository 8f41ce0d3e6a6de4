// MongoDB error codes, as drivers observe them. One table: the code names below are the
// codeName a reply carries. A code missing from the table is reported as `Location<code>`,
// as mongod does for its location codes.

export const ErrorCode = {
  OK: 0,
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  GraphContainsCycle: 5,
  HostUnreachable: 6,
  HostNotFound: 7,
  UnknownError: 8,
  FailedToParse: 9,
  CannotMutateObject: 10,
  UserNotFound: 11,
  UnsupportedFormat: 12,
  Unauthorized: 13,
  TypeMismatch: 14,
  Overflow: 15,
  InvalidLength: 16,
  ProtocolError: 17,
  AuthenticationFailed: 18,
  IllegalOperation: 20,
  EmptyArrayOperation: 21,
  InvalidBSON: 22,
  LockTimeout: 24,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  NonExistentPath: 29,
  InvalidPath: 30,
  RoleNotFound: 31,
  InvalidRoleModification: 49,
  MechanismUnavailable: 334,
  Location51002: 51002,
  Location51003: 51003,
  Location5626701: 5626701,
  Location5626702: 5626702,
  CannotBackfillArray: 34,
  CommandNotFound: 59,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  DollarPrefixedFieldName: 52,
  InvalidIdField: 53,
  NotSingleValueField: 54,
  InvalidDBRef: 55,
  EmptyFieldName: 56,
  DottedFieldName: 57,
  NoQueryExecutionPlans: 291,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  IndexAlreadyExists: 68,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  NetworkTimeout: 89,
  NotSecondary: 95,
  OperationFailed: 96,
  WriteConflict: 112,
  CommandNotSupported: 115,
  NamespaceNotSharded: 118,
  InvalidSyncSource: 119,
  OplogStartMissing: 120,
  DocumentValidationFailure: 121,
  NotAReplicaSet: 123,
  CommandFailed: 125,
  UpdateOperationFailed: 218,
  UnsatisfiableWriteConcern: 100,
  WriteConcernFailed: 64,
  UnknownReplWriteConcern: 79,
  ConflictingOperationInProgress: 117,
  InvalidViewDefinition: 182,
  CommandNotSupportedOnView: 166,
  OptionNotSupportedOnView: 167,
  InvalidPipelineOperator: 168,
  ViewDepthLimitExceeded: 165,
  Interrupted: 11601,
  JSInterpreterFailure: 139,
  ExceededTimeLimit: 262,
  ExceededMemoryLimit: 146,
  CursorKilled: 237,
  NotImplemented: 238,
  IncompatibleCollationVersion: 12,
  SnapshotTooOld: 239,
  TimeProofMismatch: 204,
  NoSuchSession: 206,
  ClusterTimeFailsRateLimiter: 209,
  KeyNotFound: 211,
  TransactionTooOld: 225,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  TransactionTooLarge: 257,
  InvalidUUID: 207,
  InvalidResumeToken: 260,
  OperationNotSupportedInTransaction: 263,
  TooManyLogicalSessions: 261,
  ChangeStreamFatalError: 280,
  ChangeStreamHistoryLost: 286,
  QueryExceededMemoryLimitNoDiskUseAllowed: 292,
  CollectionUUIDMismatch: 361,
  OutOfDiskSpace: 14031,
  PreparedTransactionInProgress: 267,
  IncompleteTransactionHistory: 217,
  NotWritablePrimary: 10107,
  NotPrimaryNoSecondaryOk: 13435,
  NotPrimaryOrSecondary: 13436,
  InterruptedAtShutdown: 11600,
  ShutdownInProgress: 91,
  DuplicateKey: 11000,
  Location15974: 15974,
  BSONObjectTooLarge: 10334,
  UnknownBSONType: 10320,
  InvalidIndexSpecificationOption: 197,
  CannotIndexParallelArrays: 171,
  KeyTooLong: 17280,
  APIStrictError: 323,
  APIDeprecationError: 324,
  APIVersionError: 322,
  InvalidOptionsForAPIVersion: 325,
  FailPointEnabled: 192,
  FailPointSetFailed: 266,
  SearchNotEnabled: 31082,
  SnapshotUnavailable: 246,
  CannotConvertIndexToUnique: 359,
  NotARetryableWriteCommand: 50768,
  UnsupportedOpQueryCommand: 352,
  AmbiguousIndexKeyPattern: 181,
  CursorInUse: 143,
  QueryPlanKilled: 175,
  DBPathInUse: 98,
  ConversionFailure: 241,
  InvalidBSONType: 357,
  ChangeStreamInvalidated: 346,
  ChangeStreamStartAfterInvalidate: 351,
  TransactionExceededLifetimeLimitSeconds: 290,
  CannotCreateCollection: 242,
  NoMatchingDocument: 47,
  IndexBuildAborted: 276,
  Location40415: 40415,
  Location40484: 40484,
  // $changeStreamSplitLargeEvent (change_stream_split_event_helpers, its stage).
  Location7182500: 7182500,
  Location7182502: 7182502,
  Location7182800: 7182800,
  Location7182802: 7182802,
  Location4910200: 4910200,
  Location4772600: 4772600,
  Location4772601: 4772601,
  Location40571: 40571,
  Location40573: 40573,
  Location40674: 40674,
  Location51024: 51024,
  Location7934201: 7934201,
  Location17217: 17217,
  Location40414: 40414,
  /** IDL: a field given twice (IDLDuplicateField). */
  Location40413: 40413,
  Location26823: 26823,
  Location16410: 16410,
  Location16411: 16411,
  Location16020: 16020,
  TooManyFilesOpen: 264,
  MaxSubPipelineDepthExceeded: 232,
  ReadConcernMajorityNotEnabled: 148,
  InvalidReplicaSetConfig: 93,
  NoReplicationEnabled: 76,
  TooManyMatchingDocuments: 170,
  StaleConfig: 13388,
  ClientMetadataDocumentTooLarge: 185,
  ClientMetadataCannotBeMutated: 186,
  ClientMetadataMissingField: 183,
  ClientMetadataAppNameTooLarge: 184,
  ClientDisconnect: 279,
  // Query language (match, projection, sort): codes mongod 7.0 answers, by their location.
  QueryFeatureNotAllowed: 224,
  Location31218: 31218,
  Location31219: 31219,
  Location5392900: 5392900,
  Location15975: 15975,
  Location15998: 15998,
  Location17312: 17312,
  Location31138: 31138,
  Location31249: 31249,
  Location31250: 31250,
  Location31252: 31252,
  Location31253: 31253,
  Location31254: 31254,
  Location31255: 31255,
  Location31256: 31256,
  Location31257: 31257,
  Location31258: 31258,
  Location31259: 31259,
  Location31270: 31270,
  Location31271: 31271,
  Location31272: 31272,
  Location31273: 31273,
  Location31274: 31274,
  Location31275: 31275,
  Location31276: 31276,
  Location31277: 31277,
  Location31287: 31287,
  Location31308: 31308,
  Location31310: 31310,
  Location31324: 31324,
  Location31325: 31325,
  Location40352: 40352,
  Location40353: 40353,
  Location51050: 51050,
  Location51074: 51074,
  Location51075: 51075,
  Location51091: 51091,
  Location51108: 51108,
  Location51156: 51156,
  Location51246: 51246,
  Location51247: 51247,
  Location51270: 51270,
  Location5729100: 5729100,
  Location6108304: 6108304,
  // mapReduce (src/commands/crud/map-reduce.ts).
  Location13522: 13522,
  Location31264: 31264,
  Location13606: 13606,
  // Text indexes and $text (src/text, mongod's fts/).
  Location16675: 16675,
  Location16732: 16732,
  Location17261: 17261,
  Location17262: 17262,
  Location17313: 17313,
  Location28682: 28682,
  Location40218: 40218,
  Location17307: 17307,
  Location17308: 17308,
  // Geospatial indexes and queries (src/geo, mongod's geo/).
  Location16755: 16755,
  Location13068: 13068,
  Location16800: 16800,
  Location16802: 16802,
  Location16803: 16803,
  Location13026: 13026,
  Location13027: 13027,
  Location16801: 16801,
  Location16893: 16893,
  Location16894: 16894,
  Location16895: 16895,
  Location16896: 16896,
  Location16897: 16897,
  Location16898: 16898,
  Location16899: 16899,
  Location16900: 16900,
  Location16681: 16681,
  Location17444: 17444,
  Location18522: 18522,
  Location34413: 34413,
  Location16804: 16804,
  Location13067: 13067,
  Location28970: 28970,
  Location28971: 28971,
  Location40227: 40227,
  Location50856: 50856,
  Location50857: 50857,
  Location50858: 50858,
  Location5860400: 5860400,
  Location5860401: 5860401,
  Location16606: 16606,
  Location16607: 16607,
  // Command `let` variables and update statement constants (`c`).
  Location4738901: 4738901,
  Location4890500: 4890500,
  Location17275: 17275,
  Location51198: 51198,
  // Indexes and the planner: key generation, min/max, hints.
  Location16746: 16746,
  Location51173: 51173,
  Location51174: 51174,
  Location51175: 51175,
  // Update language: replacement/upsert checks and the size of updated documents.
  NotExactValueField: 63,
  Location17419: 17419,
  Location17420: 17420,
  // Capped collections and tailable cursors.
  CappedPositionLost: 136,
  // Clustered collections (mongod's validateClusteredIndexSpec, validateCollectionOptions).
  Location5979700: 5979700,
  Location5979703: 5979703,
  Location5979704: 5979704,
  Location6026500: 6026500,
  Location6049200: 6049200,
  Location6049204: 6049204,
  // The rest of mongod's NotPrimaryError category (their replies carry topologyVersion).
  PrimarySteppedDown: 189,
  LegacyNotPrimary: 10058,
  InterruptedDueToReplStateChange: 11602,
  // Awaitable and exhaust hello (SDAM).
  Location31368: 31368,
  Location31372: 31372,
  Location31373: 31373,
  Location31382: 31382,
  Location51756: 51756,
  Location51764: 51764,
  // Index builds.
  IndexBuildAlreadyInProgress: 277,
  BackgroundOperationInProgressForNamespace: 12587,
  // Hashed indexes (hash_access_method, expression_params, getHashKeys).
  Location16764: 16764,
  Location16766: 16766,
  Location31303: 31303,
  // Wildcard indexes (wildcard_validation, projection parsing in kBanComputedFields mode).
  Location7246200: 7246200,
  Location7246201: 7246201,
  Location7246204: 7246204,
  Location7246208: 7246208,
  Location7246209: 7246209,
  Location7246210: 7246210,
  Location7246211: 7246211,
  Location7246301: 7246301,
  Location51271: 51271,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

const nameByCode = new Map<number, string>();
for (const [name, code] of Object.entries(ErrorCode)) {
  if (!name.startsWith('Location') && !nameByCode.has(code)) nameByCode.set(code, name);
}

/** The codeName mongod reports for a code; codes without a name are `Location<code>`. */
export function codeNameOf(code: number): string {
  return nameByCode.get(code) ?? `Location${code}`;
}

/** Labels drivers act on. */
export const ErrorLabel = {
  TransientTransactionError: 'TransientTransactionError',
  UnknownTransactionCommitResult: 'UnknownTransactionCommitResult',
  RetryableWriteError: 'RetryableWriteError',
  ResumableChangeStreamError: 'ResumableChangeStreamError',
  NoWritesPerformed: 'NoWritesPerformed',
} as const;

export interface CommandErrorOptions {
  labels?: readonly string[];
  /** Extra fields that go into the error reply next to errmsg/code/codeName (keyPattern, keyValue, …). */
  info?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * A user error: the operation fails with a MongoDB code, the server goes on.
 * Becomes `{ok: 0, errmsg, code, codeName, errorLabels?, ...info}`.
 */
export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly labels: Set<string>;
  readonly info: Record<string, unknown> | undefined;

  constructor(code: number, message: string, options: CommandErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CommandError';
    this.code = code;
    this.codeName = codeNameOf(code);
    this.labels = new Set(options.labels ?? []);
    this.info = options.info;
  }

  addLabel(label: string): this {
    this.labels.add(label);
    return this;
  }

  hasLabel(label: string): boolean {
    return this.labels.has(label);
  }
}

/** Throw a CommandError when the condition is false (mongod's uassert). */
export function uassert(
  condition: unknown,
  code: number,
  message: string | (() => string),
): asserts condition {
  if (!condition) throw new CommandError(code, typeof message === 'string' ? message : message());
}

/** Throw a CommandError unconditionally; typed `never` so it can end an expression. */
export function fail(code: number, message: string, options?: CommandErrorOptions): never {
  throw new CommandError(code, message, options);
}

/** Location40414 in mongod's IDL words: the required field `path` (dotted) is absent. */
export function missingFieldError(path: string): CommandError {
  return new CommandError(
    ErrorCode.Location40414,
    `BSON field '${path}' is missing but a required field`,
  );
}

/** A broken internal invariant: a bug, not a user error. */
export class InvariantError extends Error {
  constructor(message: string) {
    super(`invariant failed: ${message}`);
    this.name = 'InvariantError';
  }
}

export function invariant(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new InvariantError(typeof message === 'string' ? message : message());
}

export function isCommandError(e: unknown): e is CommandError {
  return e instanceof CommandError;
}

/** killOp reached the operation (mongod's Interrupted, at its next interruption point). */
export function interruptedError(): CommandError {
  return new CommandError(ErrorCode.Interrupted, 'operation was interrupted');
}
