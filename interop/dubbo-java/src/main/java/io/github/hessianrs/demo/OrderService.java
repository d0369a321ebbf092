package io.github.hessianrs.demo;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.UUID;

/**
 * A service whose DTO carries {@code java.time}, {@code BigDecimal}, {@code UUID} and an enum
 * (exported with version {@code 1.0.0}, no group, next to {@link DemoService} when the provider is
 * started with {@code --orders}). The Rust server implements it too; {@code consumer --only orders}
 * checks either.
 */
public interface OrderService {
    /**
     * Checks that {@code o} equals {@link #SENT} field by field (else throws
     * {@code IllegalArgumentException} naming the fields that differ), then returns
     * {@link #advanced}{@code (o)}.
     */
    Order advance(Order o);

    /** The order every caller sends: nanoseconds, a scale of 2, a UUID with both halves set. */
    Order SENT = new Order(
            UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
            LocalDateTime.of(2024, 2, 29, 13, 45, 30, 123456789),
            LocalDate.of(2024, 12, 31),
            Instant.ofEpochSecond(1700000000L, 5000),
            new BigDecimal("1234.50"),
            OrderStatus.NEW);

    /**
     * What {@link #advance} makes of {@code o}: each field changed so that echoing it back
     * cannot pass: the UUID's low half plus one, dates one day on, the instant one second on,
     * the amount plus one (scale kept), the next status.
     */
    static Order advanced(Order o) {
        return new Order(
                new UUID(o.getId().getMostSignificantBits(), o.getId().getLeastSignificantBits() + 1),
                o.getPlaced().plusDays(1),
                o.getDue().plusDays(1),
                o.getPaid().plusSeconds(1),
                o.getAmount().add(BigDecimal.ONE),
                o.getStatus().next());
    }
}
