package io.github.hessianrs.demo;

/** The provider side of {@link OrderService}: the values it receives are checked. */
public class OrderServiceImpl implements OrderService {
    @Override
    public Order advance(Order o) {
        if (o == null) throw new IllegalArgumentException("order is null");
        String bad = o.mismatches(SENT);
        if (!bad.isEmpty()) throw new IllegalArgumentException("order mismatch: " + bad);
        return OrderService.advanced(o);
    }
}
