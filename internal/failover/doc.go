// Package failover will hold replica selection and the failover state
// machine, with deadlines compared against the time it is given. It is a
// leaf the core uses; nothing in it does I/O.
package failover
