/**
 * A kysely plugin that scrubs the registered secrets (src/core/secrets.ts) from every string a
 * query writes: inserted and updated values, and the parameters of raw SQL. Every write of the
 * store goes through kysely, so no text reaches the database with an API key in it.
 */
import {
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from "kysely";
import { hasSecrets, scrubSecrets } from "../../core/secrets.js";

class SecretScrubber extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = scrubbed(node.value);
    return value === node.value ? super.transformValue(node) : { ...super.transformValue(node), value };
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    const values = node.values.map(scrubbed);
    return { ...super.transformPrimitiveValueList(node), values };
  }
}

function scrubbed(value: unknown): unknown {
  return typeof value === "string" ? scrubSecrets(value) : value;
}

const WRITES = new Set(["InsertQueryNode", "UpdateQueryNode"]);

export class ScrubSecretsPlugin implements KyselyPlugin {
  private readonly scrubber = new SecretScrubber();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (!hasSecrets() || !WRITES.has(args.node.kind)) return args.node;
    return this.scrubber.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
