package store

import (
	"context"
	"fmt"
)

// PutUnits stores units as PutUnit does, in one transaction: all of them
// or, when any fails, none. Writers that each have a unit ready at the same
// moment (the live API's sessions) share one commit this way instead of
// queueing for the write lock one commit each.
func (s *Store) PutUnits(ctx context.Context, units []Unit) error {
	switch len(units) {
	case 0:
		return nil
	case 1:
		return s.PutUnit(ctx, units[0])
	}
	now := s.now()
	err := s.writeTx(ctx, func(t txn) error {
		st, err := t.tx.PrepareContext(ctx, t.d.rebind(putUnitSQL))
		if err != nil {
			return err
		}
		defer st.Close()
		for _, u := range units {
			if _, err := st.ExecContext(ctx, s.putUnitArgs(u, now)...); err != nil {
				return fmt.Errorf("%s/%s: %w", u.Kind, u.Key, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put %d units: %w", len(units), err)
	}
	return nil
}
