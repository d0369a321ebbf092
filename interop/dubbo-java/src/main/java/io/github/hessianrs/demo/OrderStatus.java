package io.github.hessianrs.demo;

/** The enum of {@link Order}; {@link OrderService#advance} moves it one step on. */
public enum OrderStatus {
    NEW, PAID, SHIPPED;

    /** The next status (SHIPPED stays). */
    public OrderStatus next() {
        return this == NEW ? PAID : SHIPPED;
    }
}
