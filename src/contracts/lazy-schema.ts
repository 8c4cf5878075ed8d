/**
 * A schema built on first use. zod builds a schema when its module loads, and building is slow
 * before V8 has warmed up: the schemas of every plugin, tool and analysis cost `plan` about a
 * sixth of its start-up although one study uses a few of them (docs/PERFORMANCE.md, "Start-up").
 *
 * `lazySchema(() => z.object({...}))` stands for the schema itself: every property read, method
 * call and `instanceof` test goes to the built schema (methods are called on it, not on the
 * stand-in), and a schema nested in another is built when the outer one first reaches it. Only
 * identity differs: the stand-in is not the built object.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => {
    built ??= build();
    return built;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key, schema()),
    set: (_, key, value) => Reflect.set(schema(), key, value, schema()),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // A proxy may only report a property as non-configurable if its own target has it so.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
