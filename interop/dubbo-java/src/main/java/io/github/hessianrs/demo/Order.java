package io.github.hessianrs.demo;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Objects;
import java.util.UUID;

/**
 * The DTO of {@link OrderService}: the {@code java.time}, {@code BigDecimal}, {@code UUID} and enum
 * fields a Rust peer must send and read as these Java types, in hessian2 and in fastjson2.
 */
public class Order implements Serializable {
    private static final long serialVersionUID = 1L;

    private UUID id;
    private LocalDateTime placed;
    private LocalDate due;
    private Instant paid;
    private BigDecimal amount;
    private OrderStatus status;

    public Order() {
    }

    public Order(UUID id, LocalDateTime placed, LocalDate due, Instant paid, BigDecimal amount, OrderStatus status) {
        this.id = id;
        this.placed = placed;
        this.due = due;
        this.paid = paid;
        this.amount = amount;
        this.status = status;
    }

    public UUID getId() { return id; }
    public void setId(UUID id) { this.id = id; }
    public LocalDateTime getPlaced() { return placed; }
    public void setPlaced(LocalDateTime placed) { this.placed = placed; }
    public LocalDate getDue() { return due; }
    public void setDue(LocalDate due) { this.due = due; }
    public Instant getPaid() { return paid; }
    public void setPaid(Instant paid) { this.paid = paid; }
    public BigDecimal getAmount() { return amount; }
    public void setAmount(BigDecimal amount) { this.amount = amount; }
    public OrderStatus getStatus() { return status; }
    public void setStatus(OrderStatus status) { this.status = status; }

    /**
     * The fields that differ from {@code expected} ({@code BigDecimal} compared with its scale, each
     * value also by its exact class), as {@code "name: got X, expected Y"}; empty when none.
     */
    public String mismatches(Order expected) {
        StringBuilder sb = new StringBuilder();
        field(sb, "id", id, expected.id);
        field(sb, "placed", placed, expected.placed);
        field(sb, "due", due, expected.due);
        field(sb, "paid", paid, expected.paid);
        field(sb, "amount", amount, expected.amount);
        field(sb, "status", status, expected.status);
        return sb.toString();
    }

    private static void field(StringBuilder sb, String name, Object got, Object expected) {
        boolean same = Objects.equals(got, expected)
                && (got == null || got.getClass() == expected.getClass());
        if (same) return;
        if (sb.length() > 0) sb.append("; ");
        sb.append(name).append(": got ").append(show(got)).append(", expected ").append(show(expected));
    }

    private static String show(Object o) {
        return o == null ? "null" : o + " (" + o.getClass().getName() + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Order && ((Order) o).mismatches(this).isEmpty();
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, placed, due, paid, amount, status);
    }

    @Override
    public String toString() {
        return "Order{id=" + id + ", placed=" + placed + ", due=" + due + ", paid=" + paid + ", amount="
                + amount + ", status=" + status + "}";
    }
}
