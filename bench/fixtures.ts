// Reference data the benchmarks share.
import type { Runtime } from '../src/runtime.js';

/** An event type with two entity roles and a price: "{buyer} bought {seller} for {price}". */
export function dealEventType(runtime: Runtime) {
  return runtime.reference.createEventType({
    code_name: `bench_${Date.now()}`,
    name: 'Deal',
    description: '',
    roles: [
      { code_name: 'buyer', name: 'Buyer', expected_type: 'NAMED_ENTITY' },
      { code_name: 'seller', name: 'Seller', expected_type: 'NAMED_ENTITY' },
      { code_name: 'price', name: 'Price', expected_type: 'CURRENCY' },
    ],
    sentence_template: '{buyer} bought {seller} for {price}',
  });
}
