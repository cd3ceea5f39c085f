//! An object or a list as the API server returns it (`kubectl get -o json`), parsed.
import type { ControlPlane } from '../../../scripts/stack/control-plane.js';
import type { UncheckedJson } from '../../helpers/api.js';

export const getJson = async (plane: Pick<ControlPlane, 'kubectl'>, ...args: string[]): Promise<UncheckedJson> =>
  JSON.parse(await plane.kubectl(['get', '-o', 'json', ...args]));
