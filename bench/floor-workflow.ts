//! The cheapest workflow there is, for bench:core's floor row: what a workflow per call costs
//! before anything of ours runs in it.
export async function echo(value: string): Promise<string> {
  return value;
}
