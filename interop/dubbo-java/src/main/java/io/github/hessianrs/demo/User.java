package io.github.hessianrs.demo;

import java.io.Serializable;
import java.util.Date;
import java.util.Objects;

/**
 * The POJO of the demo service. On the wire, hessian-lite 3.2.13's JavaSerializer (Dubbo 2.7.23 and
 * 3.2.19 alike) writes the class definition with the fields in this order:
 * created, active, email, age, name, id (see captures/*&#47;getUser.response.bin).
 */
public class User implements Serializable {
    private static final long serialVersionUID = 1L;

    private long id;
    private String name;
    private int age;
    private String email;
    private boolean active;
    private Date created;

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

    public long getId() { return id; }
    public void setId(long id) { this.id = id; }
    public String getName() { return name; }
    public void setName(String name) { this.name = name; }
    public int getAge() { return age; }
    public void setAge(int age) { this.age = age; }
    public String getEmail() { return email; }
    public void setEmail(String email) { this.email = email; }
    public boolean isActive() { return active; }
    public void setActive(boolean active) { this.active = active; }
    public Date getCreated() { return created; }
    public void setCreated(Date created) { this.created = created; }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof User)) return false;
        User u = (User) o;
        return id == u.id && age == u.age && active == u.active && Objects.equals(name, u.name)
                && Objects.equals(email, u.email) && Objects.equals(created, u.created);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, age, email, active, created);
    }

    @Override
    public String toString() {
        return "User{id=" + id + ", name=" + name + ", age=" + age + ", email=" + email + ", active=" + active
                + ", created=" + (created == null ? "null" : String.valueOf(created.getTime())) + "}";
    }
}
