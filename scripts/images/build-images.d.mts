export declare const ROLES: Array<'api' | 'worker-core' | 'worker-cpu' | 'worker-network' | 'worker-browser'>;
export declare const BUDGET_MB: Record<'api' | 'worker-core' | 'worker-cpu' | 'worker-network' | 'worker-browser', number>;
export declare function imageName(role: string, tag: string): string;
export declare function imageFacts(image: string): Promise<{ bytes: number; layers: number }>;
export declare function buildImages(options: {
  root: string;
  base: string;
  tag: string;
  log: (line: string) => void;
}): Promise<Array<{ role: string; image: string; seconds: number; bytes: number; layers: number }>>;
