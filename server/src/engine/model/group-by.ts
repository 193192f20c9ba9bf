/**
 * Appends `value` to the list of `key`, made on first use. `groups.set(key, [...(groups.get(key) ?? []), value])`
 * copied the whole list at every value: quadratic in a group's size, which the end of a run met with 10^5 leaked
 * requests or never-received messages from one call site.
 */
export function addTo<K, V>(groups: Map<K, V[]>, key: K, value: V): void {
  const list = groups.get(key);
  if (list === undefined) groups.set(key, [value]);
  else list.push(value);
}
