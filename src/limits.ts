// Every limit of the server, in one place, with its unit in its name. Where a limit is
// MongoDB's own, the value is mongod's so that applications behave the same on both.
// Relations between limits are asserted at the bottom: a change that breaks one fails at load.

export const limits = {
  /** Largest user document (BSON bytes), as mongod's BSONObjMaxUserSize. */
  bsonObjectSizeMax: 16 * 1024 * 1024,
  /** Internal documents (command replies, oplog entries) may exceed the user limit by this much. */
  bsonObjectInternalHeadroomBytes: 16 * 1024,
  /** Largest wire message, header included. */
  messageSizeBytesMax: 48_000_000,
  /** Smallest legal wire message: the 16-byte header. */
  messageSizeBytesMin: 16,
  /** Most write statements in one insert/update/delete command. */
  writeBatchSizeMax: 100_000,
  /** Statements of a write command run in one storage transaction (bounds one callback's time). */
  writeStatementsPerTxnMax: 512,
  /**
   * bulkWrite: bytes of per-operation results a command keeps (mongod's bulkWriteMaxRepliesSize,
   * 16 MiB); past it the next operation fails with ExceededMemoryLimit and the batch stops.
   */
  bulkWriteRepliesBytesMax: 16 * 1024 * 1024,
  /** Retryable-write results kept in one ledger record (src/txn/ledger.ts) before another starts. */
  retryResultsPerRecordMax: 512,
  /** Bytes of retryable-write results in one ledger record before another starts. */
  retryResultBytesPerRecordMax: 4 * 1024 * 1024,
  /** Deepest nesting of documents and arrays mongod accepts in stored documents. */
  bsonDepthMax: 100,
  /**
   * mongod's maxBSONDepth: a document or array inside more than this many others in a command
   * body is refused before parsing (Overflow, "BSONObj exceeded maximum nested object depth").
   */
  commandDepthMax: 200,
  /**
   * Levels a reply wraps around the documents it carries ({cursor: {firstBatch: [doc]}}): a
   * reply nested deeper than commandDepthMax plus this is refused (Overflow) instead of sent.
   */
  replyEnvelopeDepthLevels: 3,
  /** Default number of documents in a cursor's first batch. */
  firstBatchDocsDefault: 101,
  /** Bytes of documents in one reply batch (the reply itself may go a little beyond). */
  batchSizeBytesMax: 16 * 1024 * 1024,
  /** An idle cursor is closed after this long. */
  cursorIdleTimeoutMs: 10 * 60 * 1000,
  /**
   * Longest a read runs before it gives the event loop back (src/query/exec/yield.ts): then
   * other clients are served, and the operation's kill flag and deadline are checked.
   */
  execSliceMs: 4,
  /**
   * The memory engine keeps its small keys and values in slabs of this size of its own, not in
   * Node's shared buffer pool, where one stored key pinned an 8 KiB slab of temporaries.
   */
  memoryEngineSlabBytes: 64 * 1024,
  /** Stored keys and values up to this size go in those slabs; bigger ones get their own memory. */
  memoryEngineSlabItemBytesMax: 2 * 1024,
  /** How often a long index build logs its progress (mongod's ProgressMeter: every 10 s). */
  indexBuildProgressLogMs: 10_000,
  /** Items a blocking sort sorts at once; bigger inputs are sorted in runs and merged as read. */
  sortRunItemsMax: 1024,
  /** How often the idle-cursor reaper runs. */
  cursorReaperIntervalMs: 15 * 1000,
  /** Open cursors per server. */
  openCursorsMax: 100_000,
  /**
   * Open client connections per server: the default of maxIncomingConnections (secantusd
   * --maxConns, net.maxIncomingConnections). Past it a new connection is accepted, logged
   * (22942) and closed at once, as mongod does.
   */
  connectionsMax: 10_000,
  /**
   * A wire message must arrive whole within this long of its first byte; a client that
   * stalls mid-message has its connection closed and logged (a slow-loris sender cannot hold
   * a connection and its buffered bytes forever). Reading is paused, and the clock stopped,
   * while the connection's previous request runs.
   */
  frameReceiveTimeMsMax: 30_000,
  /**
   * A new connection that sends no complete message within this long is closed and logged.
   * Established connections may stay idle for ever (drivers pool them).
   */
  firstMessageWaitMsMax: 30_000,
  /** Longest idle period secantusd --idleShutdownSecs accepts (a day). */
  idleShutdownSecsMax: 86_400,
  /** The on-demand daemon of open({ multiProcess: true }) exits after this long with no client. */
  onDemandIdleShutdownSecs: 5,
  /** open({ multiProcess: true }) gives up when no daemon answers within this long. */
  onDemandStartTimeoutMs: 60_000,
  /**
   * Longest Unix domain socket path put inside the data directory (sun_path holds 108 bytes
   * on Linux, 104 on macOS); a longer one goes to the temporary directory under a hash.
   */
  unixSocketPathBytesMax: 100,
  /**
   * A TLS handshake not finished within this long is abandoned and its socket closed, so
   * half-open handshakes cannot pile up (Node's tls.Server default; mongod relies on the OS).
   */
  tlsHandshakeTimeoutMs: 120_000,
  /**
   * Wire messages up to this size are compressed and inflated on the event loop (tens of
   * microseconds); larger ones on libuv's thread pool, so that a big message does not hold
   * the loop (zlib and snappy; zstd decodes in WebAssembly on the loop at any size).
   */
  compressionInlineBytesMax: 64 * 1024,
  /** Longest full namespace "db.collection" in bytes. */
  namespaceLengthBytesMax: 255,
  /** Longest database name in bytes. */
  databaseNameLengthBytesMax: 63,
  /** Stages in one aggregation pipeline. */
  pipelineStagesMax: 1000,
  /** Distinct terms one document may give a text index (mongod's 16732). */
  textTermsPerDocumentMax: 400_000,
  /** Stems remembered per text language (a cache: stemming is the costly part of indexing). */
  textStemCacheEntriesMax: 50_000,
  /** Polygon rings are checked for crossing edges (a pairwise test) up to this many vertices. */
  geoRingCrossingCheckVerticesMax: 4096,
  /**
   * Longest chain of views (a view on a view on ...), counted through viewOn and the
   * collections a view's pipeline reads: creating a longer one, or reading through one, is
   * ViewDepthLimitExceeded (165), mongod's ViewGraph::kMaxViewDepth.
   */
  viewDepthMax: 20,
  /**
   * Memory a blocking sort may hold before it spills (or, without allowDiskUse, fails with
   * 292): the default of the internalQueryMaxBlockingSortMemoryUsageBytes parameter.
   */
  sortMemoryBytesMax: 100 * 1024 * 1024,
  /** The currentOp command shows a longer command document as {$truncated: "<text>"} (mongod's 1000). */
  currentOpCommandBytesMax: 1000,
  /** Logical sessions kept at once. */
  logicalSessionsMax: 1_000_000,
  /** A logical session expires after this long without use. */
  logicalSessionTimeoutMinutes: 30,
  /** Fields in a compound index key pattern. */
  indexFieldsMax: 32,
  /**
   * Longest encoded index key. mongod has no such limit since 4.2; ours comes from LMDB's
   * key size (1978 bytes with the RecordId suffix), and applies to every engine alike.
   */
  indexKeyBytesMax: 1960,
  /**
   * collMod's conversion to a unique index: the duplicate scan stops after listing this many
   * records that share keys (the conversion fails with CannotConvertIndexToUnique either way).
   */
  collModDuplicateRecordsMax: 1_000_000,
  /**
   * The _ids a CannotConvertIndexToUnique reply lists, in BSON bytes (mongod's 8 MB: half the
   * largest document); at least one is listed.
   */
  collModViolationIdBytesMax: 8 * 1024 * 1024,
  /**
   * Query planning: when several indexes could answer a query, each candidate plan runs a
   * trial of at most this many units of work (keys + documents examined) ...
   */
  planTrialWorksMax: 1_000,
  /** ... or until it has produced this many documents (mongod's first batch). */
  planTrialResultsMax: 101,
  /** Byte ranges one index scan may explode its point bounds into ($in × $in × ...). */
  indexScanRangesMax: 10_000,
  /** At shutdown, how long a running request may take to finish and reply. */
  shutdownRequestWaitMs: 5_000,
  /**
   * Test fixtures (server.snapshot()) on an engine that cannot share its tables (lmdb): entries
   * copied between two yields to the event loop.
   */
  fixtureCopyChunkEntries: 2_000,
  /** Oplog size before the oldest entries are pruned (mongod sizes it from the disk). */
  oplogSizeBytesDefault: 256 * 1024 * 1024,
  /**
   * --oplog-async / --oplog-nonlogged: oplog entries of committed writes waiting for the
   * drainer. Past it a writer waits until its own entry is written (backpressure), so the
   * queue holds at most this many plus one write's worth.
   */
  oplogPendingEntriesMax: 16_384,
  /** At clean shutdown, how long the oplog drainer may take to write what is queued. */
  oplogDrainAtShutdownMs: 30_000,
  /** The retained oplog is tracked in runs of at most this many entries (pruning unit). */
  oplogSegmentEntriesMax: 1_024,
  /** Indexes per collection, _id included. */
  indexesPerCollectionMax: 64,
  /** Longest regular expression pattern in bytes (PCRE's limit in mongod). */
  regexPatternLengthBytesMax: 32_764,
  /**
   * A regex search whose backtracking tree (an upper bound computed from the pattern and the
   * input length, src/query/match/regex-guard.ts) has at most this many nodes runs on the main
   * thread (measured: 0.3-2 ns a node, so a few milliseconds at worst); any other runs in a
   * worker under regexMatchTimeMsMax.
   */
  regexNativeStepsMax: 5_000_000,
  /** Longest one regex search may run before the operation fails with 51156 (mongod: PCRE's match limit). */
  regexMatchTimeMsMax: 250,
  /** How long a new regex worker may take to start. */
  regexWorkerStartMsMax: 10_000,
  /**
   * Nesting of aggregation expressions (operators within operators). mongod bounds it only
   * through the BSON depth of the command; ours makes the recursive parser's bound explicit.
   */
  expressionDepthMax: 180,
  /** Sub-pipelines nested in one another ($lookup, $facet, $unionWith), mongod's kMaxSubPipelineDepth. */
  subPipelineDepthMax: 20,
  /** Memory $group may hold before it spills, or fails without allowDiskUse (internalDocumentSourceGroupMaxMemoryBytes). */
  groupMemoryBytesMax: 100 * 1024 * 1024,
  /**
   * Bytes of spill files (sorted runs of $sort, $group and find's blocking sort) the server
   * keeps at once, over every operation; past it a spilling operation fails with
   * OutOfDiskSpace (14031) rather than filling the disk.
   */
  spillBytesMax: 64 * 1024 * 1024 * 1024,
  /** Read buffer of one sorted run while runs are merged. */
  spillReadBufferBytes: 16 * 1024,
  /**
   * Runs merged at once. Fewer runs than this merge in one pass; more merge in passes of this
   * many, so merge memory stays about spillMergeFanInMax x spillReadBufferBytes whatever the input.
   */
  spillMergeFanInMax: 64,
  /** Runs merged at once even when the memory limit is tiny (a smaller fan-in only adds passes). */
  spillMergeFanInMin: 8,
  /** Bytes one $push/$addToSet/$topN... accumulator may hold (internalQueryMaxPushBytes and kin). */
  accumulatorMemoryBytesMax: 100 * 1024 * 1024,
  /** Bytes of documents a $facet sub-pipeline may produce (internalQueryFacetBufferSizeBytes). */
  facetBufferBytesMax: 100 * 1024 * 1024,
  /**
   * Memory $graphLookup may use for its visited set and frontier
   * (internalDocumentSourceGraphLookupMaxMemoryBytes); past it 40099, as mongod 7.0 (no spilling).
   */
  graphLookupMemoryBytesMax: 100 * 1024 * 1024,
  /**
   * Memory $bucketAuto may hold (internalDocumentSourceBucketAutoMaxMemoryBytes): past it,
   * without allowDiskUse, QueryExceededMemoryLimitNoDiskUseAllowed (292).
   */
  bucketAutoMemoryBytesMax: 100 * 1024 * 1024,
  /**
   * Memory $setWindowFields may hold (internalDocumentSourceSetWindowFieldsMaxMemoryBytes): past
   * it, without allowDiskUse, mongod's 5414201.
   */
  setWindowFieldsMemoryBytesMax: 100 * 1024 * 1024,
  /** Largest array $range may build (internalQueryMaxRangeBytes). */
  rangeMemoryBytesMax: 64 * 1024 * 1024,
  /** Time a request may wait for a blocked failpoint connection, upper bound. */
  failPointBlockTimeMsMax: 60_000,
  /** Recent log lines getLog 'global' returns (mongod's RamLog holds 1024). */
  logRamLinesMax: 1_024,
  /** Bytes of recent log lines kept for getLog, whatever their count (mongod's RamLog: 1 MiB). */
  logRamBytesMax: 1024 * 1024,
  /**
   * A log attribute (a slow operation's command) longer than this, as JSON, is cut to the fields
   * that fit, as mongod's maxLogSizeKB (10) does.
   */
  logAttributeBytesMax: 10 * 1024,
  /** mongod's system.profile is a 1 MiB capped collection: the oldest entries go past it. */
  profileCollectionBytesMax: 1024 * 1024,
  /**
   * The command document in a system.profile entry: longer, it is kept as
   * {$truncated: "<text>"} (mongod's appendMaxElementSize, 50 KiB).
   */
  profileCommandBytesMax: 50 * 1024,
  /** Missing or extra index entries validate lists (it counts them all). */
  validateInconsistenciesListedMax: 1_000,
  /** Long diagnostics (validate, dataSize, storage sizes) give the event loop back this often. */
  diagnosticSliceMs: 10,
  /** Entries a storage-size estimate reads from a large table (exact below this many). */
  tableSizeSampleEntries: 2_048,
  /** Table sizes the lmdb engine remembers between commits. */
  tableSizeCacheEntriesMax: 4_096,
  /** Namespaces `top` and $collStats latencyStats keep counters for (more are not counted). */
  topNamespacesMax: 10_000,
  /** Latency histogram buckets of the Prometheus endpoint, in seconds. */
  metricsLatencyBucketsSec: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
  /** Collections whose sizes one Prometheus scrape reports (the largest first). */
  metricsCollectionsMax: 500,

  // secantus-dump / secantus-restore (src/tools): each bound has its error there.
  /** Largest document read from a .bson file or an archive: internal size, as oplog entries may be. */
  toolDocumentBytesMax: 16 * 1024 * 1024 + 16 * 1024,
  /**
   * Documents per find/getMore batch of a dump: small batches keep the tool's memory low and
   * let the server answer other clients (and the driver's monitor) between them.
   */
  dumpCursorBatchDocs: 10_000,
  /** Documents of one collection buffered before they are written to an archive (mongodump's 16 MiB). */
  dumpArchiveSegmentBytesMax: 16 * 1024 * 1024,
  /** Documents in one insert command of a restore (mongorestore's --batchSize default). */
  restoreInsertBatchDocsMax: 1_000,
  /** Bytes of documents in one insert command of a restore (a larger document goes alone). */
  restoreInsertBatchBytesMax: 8 * 1024 * 1024,
  /** Collections dumped or restored at once (mongodump's --numParallelCollections takes any positive value). */
  toolParallelCollectionsMax: 64,
  // secantus-export / secantus-import (src/tools): each bound has its error there.
  /** Characters of one JSON document (or CSV/TSV record) of an import; a longer one fails the import. */
  importRecordTextMax: 64 * 1024 * 1024,
  /** Documents in one write command of an import (mongoimport's --batchSize default). */
  importBatchDocsMax: 1_000,
  /** Bytes of documents in one write command of an import (a larger document goes alone). */
  importBatchBytesMax: 8 * 1024 * 1024,
  /** --numInsertionWorkers at most. */
  importWorkersMax: 64,
  /** Rows of one Parquet row group an export writes (and so holds in memory) at once. */
  parquetRowGroupRowsMax: 10_000,
  /** Bytes of documents of one Parquet row group an export holds before writing it. */
  parquetRowGroupBytesMax: 64 * 1024 * 1024,
  /** Columns (distinct top-level fields) of an exported Parquet file. */
  parquetColumnsMax: 10_000,

  /** Bytes of one SASL payload (saslStart / saslContinue); a longer one fails authentication. */
  saslPayloadBytesMax: 16 * 1024,
  /** Longest user or role name in bytes. */
  userNameBytesMax: 1024,
  /** Longest SCRAM client nonce, in characters. */
  scramNonceLengthMax: 1024,
  /**
   * An Unauthorized message shows the refused command as text (mongod's "not authorized on db to
   * execute command { … }"), cut to this many characters: the body may carry a 48 MB insert.
   */
  unauthorizedCommandTextMax: 16 * 1024,
  /** Users or roles one usersInfo / rolesInfo lists at most. */
  usersInfoResultsMax: 100_000,
  /**
   * Server-side JavaScript (src/js): the longest one call into the sandbox ($where on one
   * document, one $function, one map or reduce call) may run; past it the call stops with
   * JSInterpreterFailure. Calls run on the event loop, so this bounds how long one can hold it.
   */
  jsCallTimeMaxMs: 500,
  /** Heap of one JavaScript sandbox (one operation's scope); past it, "Out of memory". */
  jsHeapBytesMax: 64 * 1024 * 1024,
  /** Stack of the sandbox's interpreter; deeper recursion is a RangeError in the code. */
  jsStackBytesMax: 256 * 1024,
  /** How long a getMore on an awaitData tailable cursor waits for an insert without maxTimeMS (mongod: 1 s). */
  tailableAwaitMsDefault: 1000,
  /** Largest capped collection size (create's `size`, mongod's 1 PB); larger: Location51024. */
  cappedSizeBytesMax: 1024 ** 5,
  /**
   * Measurements in one time-series bucket (mongod's timeseriesBucketMaxCount): the next
   * measurement of that meta value and span opens a new bucket (no error).
   */
  timeseriesBucketMeasurementsMax: 1000,
  /** Bytes of one time-series bucket (mongod's timeseriesBucketMaxSize); past it: a new bucket. */
  timeseriesBucketSizeBytesMax: 125 * 1024,
  /** Largest bucketMaxSpanSeconds / bucketRoundingSeconds (one year); larger: Location51024. */
  timeseriesBucketSpanSecondsMax: 31_536_000,

  /**
   * mongod's maxAcceptableLogicalClockDriftSecs: a gossiped $clusterTime more than this ahead
   * of the wall clock is refused (ClusterTimeFailsRateLimiter) instead of moving the clock.
   */
  clusterTimeDriftSecsMax: 365 * 24 * 60 * 60,
  /** mongod's client metadata limit: the handshake's `client` document, in BSON bytes. */
  clientMetadataBytesMax: 1024,
  /** mongod's limit on `client.application.name`, in UTF-8 bytes. */
  clientAppNameBytesMax: 128,

  /** Page size of a new sqlite engine database: rows up to ~4 KiB stay inside their page. */
  sqlitePageBytes: 16 * 1024,
  /** SQLite page cache of each connection of the sqlite engine (its cache_size, in KiB). */
  sqliteCacheKiB: 32 * 1024,
  /** Bytes of the sqlite engine's database file each connection maps (its mmap_size). */
  sqliteMmapBytes: 256 * 1024 * 1024,
  /** The jsonfile engine compacts its log while open once it is at least this big... */
  jsonfileCompactLogBytesMin: 8 * 1024 * 1024,
  /** ...and this many times the bytes of the live data (its text is ~2x their bytes). */
  jsonfileCompactLogToDataRatio: 4,
  /** Characters written at once while compacting (the event loop is given back between). */
  jsonfileCompactChunkChars: 256 * 1024,
  /**
   * How long a plain write waits for a multi-document transaction holding its document before
   * it gives up with WriteConflict (src/txn/tracked-engine.ts).
   */
  plainWriteWaitMsMax: 65_000,
  /** Commit records the conflict tracker keeps before a prune pass is worth its cost. */
  conflictRecordsPruneAt: 10_000,
  /** Labelled snapshots kept at once; each holds storage versions (and an LMDB reader slot). */
  labelledSnapshotsMax: 32,
  /** How long an unused labelled snapshot is kept (mongod's minSnapshotHistoryWindowInSeconds). */
  labelledSnapshotIdleMs: 5 * 60 * 1000,
} as const;

export type Limits = typeof limits;

// The relations the numbers rely on.
if (
  limits.bsonObjectSizeMax + limits.bsonObjectInternalHeadroomBytes >=
  limits.messageSizeBytesMax
) {
  throw new Error('limits: a maximal document must fit in a message');
}
if (limits.restoreInsertBatchBytesMax > limits.bsonObjectSizeMax) {
  throw new Error('limits: a restore batch must fit in one command body');
}
if (limits.commandDepthMax < limits.bsonDepthMax) {
  throw new Error('limits: a command must be able to carry a maximally nested document');
}
