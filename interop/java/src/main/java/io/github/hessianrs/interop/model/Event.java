package io.github.hessianrs.interop.model;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.UUID;

/** A DTO with the Java types real Dubbo interfaces carry (java.time, BigDecimal, UUID, enum). */
public class Event implements Serializable {
    private static final long serialVersionUID = 1L;

    public UUID id;
    public LocalDateTime at;
    public LocalDate day;
    public Instant stamp;
    public BigDecimal amount;
    public Color color;

    public Event() {
    }
}
