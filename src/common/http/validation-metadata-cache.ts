import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];

const CACHED = Symbol.for('atrium.validationMetadataCache');

/**
 * Remembers class-validator's metadata of each DTO class (issue 14 item 1: "class-validator metadata lookups per
 * request"). `getTargetValidationMetadatas` walks every class that has validation metadata (hundreds here) to find
 * the target's ancestors, on every validated object of every request; its answer only changes when a decorator
 * registers new metadata, which happens when a module is loaded. So answers are kept per class and options, and
 * all of them are dropped whenever metadata is added. Same answers, same validation, same error bodies. Idempotent.
 * @param storage class-validator's global metadata storage (the one the ValidationPipe uses)
 */
export function cacheValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const target = storage as Storage & { [CACHED]?: true };
  if (target[CACHED]) return;
  target[CACHED] = true;
  let answers = new WeakMap<object, Map<string, ReturnType<Lookup>>>();
  const lookup = storage.getTargetValidationMetadatas.bind(storage) as Lookup;
  const forget = () => {
    answers = new WeakMap();
  };
  storage.getTargetValidationMetadatas = ((targetConstructor, targetSchema, always, strictGroups, groups) => {
    // Schemas (string targets) are rare and not cached.
    if (typeof targetConstructor !== 'function') return lookup(targetConstructor, targetSchema, always, strictGroups, groups);
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups ? groups.join('\u0001') : ''}`;
    let byOptions = answers.get(targetConstructor);
    if (!byOptions) answers.set(targetConstructor, (byOptions = new Map()));
    let answer = byOptions.get(key);
    if (!answer) byOptions.set(key, (answer = lookup(targetConstructor, targetSchema, always, strictGroups, groups)));
    return answer;
  }) as Lookup;
  for (const method of ['addValidationMetadata', 'addValidationSchema', 'addConstraintMetadata'] as const) {
    const original = (storage[method] as (...args: unknown[]) => unknown).bind(storage);
    (storage as unknown as Record<string, (...args: unknown[]) => unknown>)[method] = (...args: unknown[]) => {
      forget();
      return original(...args);
    };
  }
}
