// Copied from interop/java/src/main/java/io/github/hessianrs/interop/model/User.java (same class name,
// so the bytes are the Java vectors' and the Go/Rust peers' class).
package io.github.hessianrs.interop.model;

import java.io.Serializable;
import java.util.Date;

/** Plain POJO. hessian-lite writes its fields as: created, active, email, age, name, id. */
public class User implements Serializable {
    private static final long serialVersionUID = 1L;

    public long id;
    public String name;
    public int age;
    public String email;
    public boolean active;
    public Date created;

    public User() {
    }

    public User(long id, String name, int age, String email, boolean active, Date created) {
        this.id = id;
        this.name = name;
        this.age = age;
        this.email = email;
        this.active = active;
        this.created = created;
    }
}
