// Which wire compressors a test can use end to end: the server must run it and the driver must
// load its package (snappy, @mongodb-js/zstd; zlib is Node's own).

import { availableCodecs } from '../../src/wire/compression.js';

export type DriverCompressor = 'zlib' | 'snappy' | 'zstd';

const driverPackage: Record<DriverCompressor, string | undefined> = {
  zlib: undefined,
  snappy: 'snappy',
  zstd: '@mongodb-js/zstd',
};

async function loads(name: string): Promise<boolean> {
  try {
    await import(name);
    return true;
  } catch {
    return false;
  }
}

/** Each compressor, and why it cannot be tested here ('' when it can). */
export async function driverCompressors(): Promise<Array<[DriverCompressor, string]>> {
  const server = await availableCodecs();
  const out: Array<[DriverCompressor, string]> = [];
  for (const name of ['zlib', 'snappy', 'zstd'] as const) {
    const pkg = driverPackage[name];
    if (!server.has(name)) out.push([name, `the server cannot run ${name} (package missing)`]);
    else if (pkg !== undefined && !(await loads(pkg)))
      out.push([name, `the driver's ${pkg} package is not installed`]);
    else out.push([name, '']);
  }
  return out;
}
