// The plan stage shared by $project, $addFields/$set and $unset: a projection (../projection.ts)
// applied to each document.

import type { BsonDocument, BsonValue } from '../../bson/types.js';
import type { Projection } from '../projection.js';
import { MapStage } from './base.js';
import type { Runtime, Stage } from './types.js';

export class ProjectionStage implements Stage {
  constructor(
    readonly name: string,
    private readonly spec: BsonValue,
    readonly projection: Projection,
  ) {}
  serialize(): BsonDocument {
    return { [this.name]: this.spec };
  }
  attach(input: Parameters<Stage['attach']>[0], rt: Runtime): ReturnType<Stage['attach']> {
    const p = this.projection;
    const frame = rt.frame;
    return new MapStage(this.name, input, (doc) => p.apply(doc, frame));
  }
}
